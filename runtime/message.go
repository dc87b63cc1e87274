package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrygen/retrygen/runtime/internal/shown"
)

// Bounds of what Error shows, in bytes before the "…" that marks a cut.
const (
	messageLimit   = 200  // the server's message
	requestIDLimit = 100  // the response's request id
	transportLimit = 300  // the text of a transport error
	causeLimit     = 300  // the text of the cause
	urlLimit       = 500  // the request's URL, redacted
	errorTextLimit = 1000 // an attempt's error, as events, logs and Error.Err show it
	// messageRead bounds how much of a message is looked at: enough for an excerpt
	// unless the message opens with a run of characters that the excerpt drops.
	messageRead = readFactor * messageLimit
)

// readFactor is how many times its limit peerText looks at of a text.
const readFactor = 8

// requestIDHeaders are the headers a response's request id is read from, in this order.
var requestIDHeaders = [...]string{"X-Request-Id", "Request-Id", "X-Github-Request-Id"}

// requestID returns the first non-blank request id in h, as an excerpt with hide's
// secrets redacted; "" when none.
func requestID(h http.Header, hide *sentRequest) string {
	for _, name := range requestIDHeaders {
		for _, v := range h.Values(name) {
			if id := excerpt(hide.hide(excerpt(v, math.MaxInt), false), requestIDLimit); id != "" {
				return id
			}
		}
	}
	return ""
}

// The places of an error body's message, best first. The first that holds a string that
// is not blank is the message.
const (
	rankMessage          = iota // {"message": "…"}: GitHub, AWS, most APIs
	rankErrorMessage            // {"error": {"message": "…"}}: Stripe, OpenAI, Google
	rankErrorDescription        // {"error": "invalid_grant", "error_description": "…"}: OAuth 2.0
	rankError                   // {"error": "…"}: a code or a sentence
	rankDetail                  // {"detail": "…"}: RFC 9457 problem details, Django, FastAPI
	rankTitle                   // {"title": "…"}: RFC 9457's summary of the problem type
	rankErrorsMessage           // {"errors": [{"message": "…"}, …]}: GraphQL
	rankCount
)

// serverMessage returns the message of an error body that is a JSON object, as an
// excerpt with hide's secrets, URLs and query values redacted; "" when it holds none. A message that only
// repeats statusText counts as none. Member names match case-insensitively, as
// encoding/json matches them; values that are not strings are passed over. The
// Content-Type is not consulted: a body that is not JSON (an HTML page, plain text) never
// parses as an object, and JSON labelled text/plain is still JSON.
//
// At most ErrorBodyLimit bytes are read, all that the engine keeps of a body. The members
// are read in order and reading stops at a top-level "message", so a body cut short (at
// that limit, or drained during a wait) still gives what came before the cut, the start of
// a string the cut falls in included, and nothing is decoded beyond what the message needs.
func serverMessage(body []byte, statusText string, hide *sentRequest) string {
	body = bytes.TrimLeft(body[:min(len(body), ErrorBodyLimit)], jsonSpace+"\ufeff")
	if len(body) == 0 || body[0] != '{' {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	var found [rankCount]string
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		at := dec.InputOffset()
		msg, rank, err := member(dec, key)
		cut := err != nil
		if cut {
			msg = cutString(body[at:])
		}
		if rank >= 0 && found[rank] == "" {
			if msg = peerText(msg, messageLimit, cut, hide); !strings.EqualFold(msg, statusText) {
				found[rank] = msg
			}
		}
		if cut || found[rankMessage] != "" {
			break
		}
	}
	for _, msg := range found {
		if msg != "" {
			return msg
		}
	}
	return ""
}

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"

// peerText returns what Error shows of s, text a peer wrote (the server's message, a
// transport error quoting a certificate or a proxy): its first readFactor*limit bytes with
// hide's secrets, URLs and query values redacted, as an excerpt of limit bytes. cut says
// that the text goes on beyond s, which the excerpt then marks. The secrets are looked
// for in the text as the excerpt writes it, so that no character it drops can split one.
func peerText(s string, limit int, cut bool, hide *sentRequest) string {
	if read := readFactor * limit; len(s) > read {
		n := read
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	s = excerpt(redactText(hide.hide(excerpt(s, math.MaxInt), cut)), limit)
	if cut && s != "" && !strings.HasSuffix(s, "…") {
		s += "…"
	}
	return s
}

// cutString returns the start of a member's string value that the end of the body cuts
// short, decoded; rest is the body after the member's name. It is "" when the value is
// not a string.
func cutString(rest []byte) string {
	rest = bytes.TrimLeft(rest, jsonSpace)
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], jsonSpace)
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	s := rest[1:min(len(rest), 1+messageRead)]
	// Back off over an escape the cut left incomplete, "\uXXXX" at the longest; a UTF-8
	// sequence or surrogate pair it left incomplete decodes to U+FFFD, trimmed with any
	// space before it.
	for range len(`\uXXXX`) {
		var v string
		if json.Unmarshal(slices.Concat([]byte{'"'}, s, []byte{'"'}), &v) == nil {
			return strings.TrimRightFunc(v, func(r rune) bool { return r == utf8.RuneError || unicode.IsSpace(r) })
		}
		if len(s) == 0 {
			break
		}
		s = s[:len(s)-1]
	}
	return ""
}

// member decodes the value of the top-level member key from dec, and returns the message
// it holds with its rank, or a rank of -1.
func member(dec *json.Decoder, key string) (msg string, rank int, err error) {
	var s jsonString
	switch {
	case strings.EqualFold(key, "message"):
		rank, err = rankMessage, dec.Decode(&s)
	case strings.EqualFold(key, "error"):
		var v errorValue
		err = dec.Decode(&v)
		s, rank = v.msg, rankError
		if v.object {
			rank = rankErrorMessage
		}
	case strings.EqualFold(key, "error_description"):
		rank, err = rankErrorDescription, dec.Decode(&s)
	case strings.EqualFold(key, "detail"):
		rank, err = rankDetail, dec.Decode(&s)
	case strings.EqualFold(key, "title"):
		rank, err = rankTitle, dec.Decode(&s)
	case strings.EqualFold(key, "errors"):
		var v firstMessage
		rank, err = rankErrorsMessage, dec.Decode(&v)
		s = jsonString(v)
	default:
		rank, err = -1, dec.Decode(&skipped{})
	}
	return string(s), rank, err
}

// jsonString is a JSON value kept when it is a string; any other value decodes to "".
type jsonString string

func (s *jsonString) UnmarshalJSON(data []byte) error {
	var v string
	if len(data) > 0 && data[0] == '"' && json.Unmarshal(data, &v) == nil {
		*s = jsonString(v)
	}
	return nil
}

// errorValue is an "error" member: a string, or an object whose "message" is the message.
type errorValue struct {
	msg    jsonString
	object bool
}

func (e *errorValue) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || data[0] != '{' {
		return e.msg.UnmarshalJSON(data)
	}
	var v struct {
		Message jsonString `json:"message"`
	}
	if json.Unmarshal(data, &v) == nil {
		e.msg, e.object = v.Message, true
	}
	return nil
}

// firstMessage is an "errors" member: the "message" of its first element, when it is an
// array whose first element is an object. The other elements are not decoded.
type firstMessage jsonString

func (m *firstMessage) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') || !dec.More() {
		return nil
	}
	var first struct {
		Message jsonString `json:"message"`
	}
	if dec.Decode(&first) == nil {
		*m = firstMessage(first.Message)
	}
	return nil
}

// skipped is a JSON value read past and not decoded.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// excerpt returns s on one line of printable characters, cut to at most limit bytes
// (plus the "…" that marks a cut): see shown.Excerpt.
func excerpt(s string, limit int) string { return shown.Excerpt(s, limit) }
