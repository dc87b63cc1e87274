package runtime

import (
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
)

// watchBody makes r's body, and each body r.GetBody makes for net/http's redirects and
// re-sends, record in a the first error its reader returns (see bodyError). net/http
// returns a request body's read error as the attempt's error, with nothing that tells it
// from a network failure; a GetBody that fails in a redirect is recorded too. An error a
// body returns once net/http has closed it (as a stream reset does under a read) follows
// from that close and is not recorded. A body in memory (see inMemory) cannot fail and is
// left as it is, so that net/http still sends it with the headers in one write.
func (a *attempt) watchBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	if !inMemory(r.Body) {
		r.Body = &watchedBody{ReadCloser: r.Body, a: a}
	}
	if get := r.GetBody; get != nil {
		r.GetBody = func() (io.ReadCloser, error) {
			body, err := get()
			if err != nil {
				a.recordBodyError(err)
				return nil, err
			}
			if body == nil || body == http.NoBody || inMemory(body) {
				return body, nil
			}
			return &watchedBody{ReadCloser: body, a: a}, nil
		}
	}
}

// inMemory reports whether body is one of the readers that net/http takes as in memory
// and writes with the request's headers: a *bytes.Reader, *bytes.Buffer or
// *strings.Reader, bare or behind io.NopCloser, as http.NewRequest and its GetBody make
// them. None of them can fail. net/http looks through io.NopCloser the same way.
func inMemory(body io.Reader) bool {
	switch body.(type) {
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return true
	}
	if t := reflect.TypeOf(body); t == nopCloserType || t == nopCloserWriterToType {
		inner, _ := reflect.ValueOf(body).Field(0).Interface().(io.Reader)
		return inMemory(inner)
	}
	return false
}

// The types io.NopCloser returns, for a reader without and with WriteTo.
var (
	nopCloserType         = reflect.TypeOf(io.NopCloser(nil))
	nopCloserWriterToType = reflect.TypeOf(io.NopCloser(strings.NewReader("")))
)

func (a *attempt) recordBodyError(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bodyErr == nil {
		a.bodyErr = err
	}
}

// bodyError returns the first error the attempt's request body returned, or nil.
func (a *attempt) bodyError() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bodyErr
}

// watchedBody is a request body that records its reader's errors in its attempt.
type watchedBody struct {
	io.ReadCloser
	a      *attempt
	closed atomic.Bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && !b.closed.Load() {
		b.a.recordBodyError(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}
