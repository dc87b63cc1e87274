package wire

import (
	"io"
	"net/http"
)

// replayable lets the engine send a reader body again: http.NewRequest already does so
// for bytes and strings; a reader that can seek is read from its current offset on every
// attempt, and r's source (a multipart body, a stream) when its parts can be read again
// (see source). Any other reader stays single-use.
func replayable(req *http.Request, body io.Reader, r *Request) error {
	if body == nil || req.GetBody != nil {
		return nil
	}
	if src := r.src; src != nil {
		req.ContentLength = src.size
		if src.size == 0 {
			body.(io.Closer).Close()
			req.Body = http.NoBody
		}
		if src.replays() {
			req.GetBody = src.reader
		}
		return nil
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return nil
	}
	start, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil // not really seekable, e.g. a pipe: single-use
	}
	end, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if _, err := s.Seek(start, io.SeekStart); err != nil {
		return err
	}
	size := end - start
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return nil
	}
	if ra, ok := body.(io.ReaderAt); ok {
		// Each attempt reads its own section, so an earlier attempt's transport
		// goroutine still closing its body cannot move the next attempt's offset.
		req.Body = io.NopCloser(io.NewSectionReader(ra, start, size))
		req.GetBody = func() (io.ReadCloser, error) {
			return io.NopCloser(io.NewSectionReader(ra, start, size)), nil
		}
		return nil
	}
	req.GetBody = func() (io.ReadCloser, error) {
		if _, err := s.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
		return io.NopCloser(body), nil
	}
	return nil
}
