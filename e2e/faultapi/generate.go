// Package faultapi is the client retrygen generates from faultapi.yaml, a spec with the
// operations the end-to-end tests in the parent folder need beyond the petstore. It is
// committed and checked for staleness like every generated file in the repository.
package faultapi

//go:generate go run ../../cmd/retrygen -package faultapi -o client_gen.go faultapi.yaml
