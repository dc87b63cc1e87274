// Package wire is the fixed code every client that retrygen generates calls besides the
// retry engine: the client's options and base URL, building a request (path, query,
// header and cookie parameters in their OpenAPI styles), body encodings (JSON,
// form-urlencoded, multipart, raw readers) and their replay on a retry, decoding
// responses and typed error models, the JSON helpers of generated types (custom field
// names, unions), credentials per security scheme (Credential, WithCredential,
// Request.Security), server-sent event streams (EventReader, Stream, OpenStream), page
// walks of paginated operations (Walk, All, Pager), per-call options and response
// metadata (CallOption, WithResponseInfo, ReadHeader), and server URLs (WithSpecServers,
// ServerURL). URLs it passes on in errors, retry events and log
// records carry no query values (RedactURL).
//
// Generated files hold only what their spec says and call this package for the rest, so
// a fix here reaches every client with `go get -u`, without regenerating. It is written
// for generated code: its names are stable for a given runtime.SupportPackageIsVersionN
// constant, which every generated file refers to, but application code should use the
// generated package instead.
//
// Parameter styles are typed per location (PathStyle, QueryStyle, HeaderStyle,
// CookieStyle), so a path style cannot be passed for a query parameter. Each constant is
// one OpenAPI style and explode pair; a constant without a suffix has the style's default
// explode, e.g. QueryForm is form with explode true and PathSimple is simple with explode
// false.
//
// What goes on the wire is checked before anything is sent: a path parameter stays one
// segment ("../admin" becomes "..%2Fadmin", ".." becomes "%2E%2E"); a header value with
// a control character fails the call; a cookie value is percent-encoded where a
// cookie-octet cannot hold it.
//
// What goes on the wire is what the spec means, and a few types let the caller say it:
// Nullable[T] tells an absent property (its zero value, left out by `omitzero`) from an
// explicit null (Null) and a value (Value); Date is a civil date (`format: date`); File
// is a multipart file part with its filename and Content-Type. Marshal and Unmarshal read
// and write generated unions and structs by their struct tags: a struct leaves out its
// read-only properties, fills in its constants and keeps its additional ones; a union
// writes its discriminator, and is written as read when unchanged; both in one pass,
// however deeply unions nest. A 2xx status that an
// operation does not declare is an error (Undeclared, ErrUndeclaredStatus), never an
// empty result.
//
// The package imports only the standard library and this module's runtime.
package wire
