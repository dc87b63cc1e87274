// Package client is the Go client that retrygen generates from ../petstore.yaml. It is
// committed, as a generated client in a real module would be; regenerate it after changing
// the spec with
//
//	go generate ./examples/petstore/...
//
// and CI (.ci/run) fails when the committed file is not what the spec gives.
package client

//go:generate go run ../../../cmd/retrygen -package client -o client_gen.go ../petstore.yaml
