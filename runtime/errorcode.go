package runtime

import (
	"encoding/json"
	"strconv"
)

// codeLimit bounds the error code Error.Code returns, in bytes.
const codeLimit = 100

// Code returns the error code of the server's JSON body, a word a program can switch
// on: OpenAI's and Stripe's {"error": {"code": "invalid_api_key"}}, a top-level
// {"code": "not_found"}, or OAuth 2's {"error": "invalid_grant"}; "" when the body gives
// none or is not JSON. A number is given as its digits. The code is on one line, bounded,
// with the request's credentials REDACTED, as DecodeBody has them.
func (e *Error) Code() string {
	var body struct {
		Code  json.RawMessage `json:"code"`
		Error json.RawMessage `json:"error"`
	}
	if e.DecodeBody(&body) != nil {
		return ""
	}
	if c := codeOf(body.Code); c != "" {
		return c
	}
	var inner struct {
		Code json.RawMessage `json:"code"`
	}
	if json.Unmarshal(body.Error, &inner) == nil {
		if c := codeOf(inner.Code); c != "" {
			return c
		}
	}
	return codeOf(body.Error)
}

// codeOf returns the JSON string or integer raw as a code; "" for anything else.
func codeOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return excerpt(s, codeLimit)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String()
		}
	}
	return ""
}
