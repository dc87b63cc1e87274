// Package conformance checks generated clients against the specs themselves, on the
// wire. Its tests are the suite; the package holds no code of its own.
//
// For every operation of every spec in the corpus (../shared/specs, history/ included,
// the petstore example and the golden cases), the suite generates the client, builds it
// with a driver program (package driver) in a temporary module, and calls every method
// with schema-valid sample arguments against an in-memory transport. kin-openapi judges
// each request the client sent: it is routed by the spec's own paths with kin-openapi's
// legacy router and checked with openapi3filter.ValidateRequest. The transport answers
// with a schema-valid sample response for each status the operation declares (checked
// with openapi3filter.ValidateResponse before it is sent), and the driver checks that
// each 2xx decodes into its type and each other status reaches the caller as an
// *APIError holding the declared error model.
//
// The outcome per spec is REPORT.md, regenerated with
//
//	RETRYGEN_LONG=1 go test ./conformance -run TestConformance -update
//
// and checked by every run: a change in what passes shows up as a test failure until
// the report is regenerated. The default run covers the small specs; RETRYGEN_LONG=1
// adds the large public ones. What the validator cannot judge is listed in
// exclusions_test.go with the reason; an entry that no longer matches anything fails the
// suite.
package conformance
