// Package e2e holds the end-to-end tests of generated clients: group B of the reliability
// catalogue (docs/reliability.md, "B. Generated clients end to end"), one test per case,
// each named after what it checks, with its case's id first in its doc comment:
//
//	B1   TestGetRetriedUntilSuccess                   retry_test.go
//	B2   TestRetryAfterOnTheWire                      retry_test.go
//	B3   TestPutAndDeleteRetried                      retry_test.go
//	B4   TestNonIdempotentNotRetried                  retry_test.go
//	B5   TestIdempotencyKeyOnEveryAttempt             retry_test.go
//	B6   TestIdempotencyErrorCodes                    retry_test.go
//	B7   TestFaultsOnIdempotentRequestsRetried        faults_test.go
//	B8   TestNoDuplicateSideEffect                    faults_test.go
//	B9   TestDialRefusedRetried                       faults_test.go
//	B10  TestConnectionReusedAcrossAttempts           faults_test.go
//	B11  TestHugeErrorBodyReadBounded                 faults_test.go
//	B12  TestHeaderInjectionRefusedBeforeSending      security_test.go
//	B13  TestPathAndQueryEscaping                     security_test.go
//	B14  TestRedirectsStripCredentials                security_test.go
//	B15  TestRedirectsAreNotRetries                   security_test.go
//	B16  TestSecretsRedacted                          security_test.go
//	B17  TestRateLimitFields                          retry_test.go
//	B18  TestPerOperationPolicyWithoutAmplification   retry_test.go
//	B19  TestNonReplayableUploadSentOnce              faults_test.go
//	B20  TestConcurrentCallsUnderFaults               faults_test.go
//
// client_test.go checks the client surface of group F through clientapi's client:
// credentials per security requirement, event streams, media types, response metadata,
// servers, unions and discriminators, redirect-only operations.
//
// Each test drives a generated client — the petstore's (../examples/petstore/client) or,
// for what the petstore lacks, faultapi's (./faultapi, generated from faultapi.yaml) or
// clientapi's (./clientapi) — against a fault-injecting HTTP server: scripted statuses and
// Retry-After values, dropped and truncated connections, slow and huge answers, redirects.
// Almost all of them run in a testing/synctest bubble on an in-memory network
// (../internal/memnet), so that backoff and Retry-After waits take no real time and are
// measured exactly: a test asserts "the second attempt came 1s after the first, plus under
// 100ms of backoff", never a wall-clock window. The few that need a real socket (the
// default transport, a refused dial on loopback) assert counts only.
//
// The package has no code of its own: `go test ./e2e` runs it.
package e2e
