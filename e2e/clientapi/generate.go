// Package clientapi is the generated client of clientapi.yaml, the end-to-end tests' API
// for security schemes, event streams, response metadata, servers, webhooks and
// paginated lists.
package clientapi

//go:generate go run ../../cmd/retrygen -package clientapi -o client_gen.go clientapi.yaml
