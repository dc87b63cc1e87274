package runtime

import (
	"io"
	"net/http"
	"sync/atomic"
)

// watchBody makes r's body, and each body r.GetBody makes for net/http's redirects and
// re-sends, record in a the first error its reader returns (see bodyError). net/http
// returns a request body's read error as the attempt's error, with nothing that tells it
// from a network failure; a GetBody that fails in a redirect is recorded too. An error a
// body returns once net/http has closed it (as a stream reset does under a read) follows
// from that close and is not recorded.
func (a *attempt) watchBody(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	r.Body = &watchedBody{ReadCloser: r.Body, a: a}
	if get := r.GetBody; get != nil {
		r.GetBody = func() (io.ReadCloser, error) {
			body, err := get()
			if err != nil {
				a.recordBodyError(err)
				return nil, err
			}
			if body == nil || body == http.NoBody {
				return body, nil
			}
			return &watchedBody{ReadCloser: body, a: a}, nil
		}
	}
}

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
