package wire

// PathStyle is how a path parameter is written: an OpenAPI style with its explode flag.
type PathStyle uint8

// Path styles. Examples are for the parameter id with the array [3, 4] and the object
// {"a": 1, "b": 2}.
const (
	PathSimple        PathStyle = iota // simple, explode false (the default): 3,4 and a,1,b,2
	PathSimpleExplode                  // simple, explode true: 3,4 and a=1,b=2
	PathLabel                          // label: .3,4 and .a,1,b,2
	PathLabelExplode                   // label, explode true: .3.4 and .a=1.b=2
	PathMatrix                         // matrix: ;id=3,4 and ;id=a,1,b,2
	PathMatrixExplode                  // matrix, explode true: ;id=3;id=4 and ;id=a=1;id=b=2
	PathJSON                           // described by content rather than a schema: the value's JSON
)

// QueryStyle is how a query parameter is written: an OpenAPI style with its explode flag.
type QueryStyle uint8

// Query styles. Examples are for the parameter id with the array [3, 4] and the object
// {"a": 1, "b": 2}, before URL encoding. With explode true, spaceDelimited and
// pipeDelimited write what form does, so they have no constant of their own.
const (
	QueryForm           QueryStyle = iota // form, explode true (the default): id=3&id=4 and a=1&b=2
	QueryFormNoExplode                    // form, explode false: id=3,4 and id=a,1,b,2
	QuerySpaceDelimited                   // spaceDelimited: id=3 4
	QueryPipeDelimited                    // pipeDelimited: id=3|4
	QueryDeepObject                       // deepObject: id[a]=1&id[b]=2, nested as id[a][x] and id[a][0]
	QueryJSON                             // described by content rather than a schema: the value's JSON
)

// HeaderStyle is how a header parameter is written: the simple style with its explode
// flag, or JSON.
type HeaderStyle uint8

// Header styles, with the examples of PathStyle.
const (
	HeaderSimple        HeaderStyle = iota // simple, explode false (the default): 3,4 and a,1,b,2
	HeaderSimpleExplode                    // simple, explode true: 3,4 and a=1,b=2
	HeaderJSON                             // described by content rather than a schema: the value's JSON
)

// CookieStyle is how a cookie parameter is written: the form style with its explode
// flag, or JSON.
type CookieStyle uint8

// Cookie styles, with the examples of QueryStyle.
const (
	CookieForm          CookieStyle = iota // form, explode true (the default): id=3; id=4 and a=1; b=2
	CookieFormNoExplode                    // form, explode false: id=3,4 and id=a,1,b,2
	CookieJSON                             // described by content rather than a schema: the value's JSON
)
