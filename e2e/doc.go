// Package e2e holds the end-to-end tests of generated clients: group B of the reliability
// catalogue (../../shared/RELIABILITY.md), one test per case, named after it (TestB1…,
// TestB20…).
//
// Each test drives a generated client — the petstore's (../examples/petstore/client) or,
// for what the petstore lacks, faultapi's (./faultapi, generated from faultapi.yaml) —
// against a fault-injecting HTTP server: scripted statuses and Retry-After values, dropped
// and truncated connections, slow and huge answers, redirects. Almost all of them run in a
// testing/synctest bubble on an in-memory network (../internal/memnet), so that backoff
// and Retry-After waits take no real time and are measured exactly: a test asserts "the
// second attempt came 1s after the first, plus under 100ms of backoff", never a wall-clock
// window. The few that need a real socket (the default transport, a refused dial on
// loopback) assert counts only.
//
// The package has no code of its own: `go test ./e2e` runs it.
package e2e
