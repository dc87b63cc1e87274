package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/retrygen/retrygen/runtime"
)

// BufferedBodyLimit is how much of a request body's reader that can neither seek nor be
// reopened the client keeps in memory to send it again: a reader that ends within it is
// sent with its length and replayed on a retry; a longer one streams, once, and the call
// is not retried (runtime.ErrBodyNotReplayable).
const BufferedBodyLimit = 1 << 20

// Reopen returns a request body whose content open gives: each attempt that sends it
// calls open for a reader of its own, and closes it. It makes a body that cannot seek (a
// download, a pipe from a command) one that a retry can send again. Read directly, it
// reads what the first open gives.
func Reopen(open func() (io.ReadCloser, error)) io.Reader { return &reopener{open: open} }

type reopener struct {
	open func() (io.ReadCloser, error)
	rc   io.ReadCloser
	err  error
}

func (r *reopener) Read(p []byte) (int, error) {
	if r.rc == nil && r.err == nil {
		r.rc, r.err = r.open()
	}
	if r.err != nil {
		return 0, r.err
	}
	return r.rc.Read(p)
}

// source is a request body made of parts sent in order: bytes, and the caller's readers,
// read only as the body is sent, so that a large file never sits in memory. It is
// prepared when first sent: each reader that can seek is sent from where it stood, with
// its length; one that can be reopened is opened anew for each attempt; any other is read
// ahead up to BufferedBodyLimit, and kept whole when it ends there, else sent once, its
// first bytes then the rest.
type source struct {
	parts    []bodyPart
	prepared bool
	err      error // why preparing failed
	size     int64 // the body's length; -1 when a part's is unknown
	once     bool  // a part can be read only once
	handed   bool  // that part has been handed out
}

// bodyPart is one part of a source: data, then (when r is not nil) what r gives.
type bodyPart struct {
	data []byte
	r    io.Reader
	name string // a multipart part's name, for errors

	// Once prepared, r is one of these: a reader that seeks, sent from start for n bytes;
	// a reopener; or a reader read once after its first bytes (in data).
	seek     io.Seeker
	at       io.ReaderAt
	start, n int64
	open     func() (io.ReadCloser, error)
	rest     io.Reader
}

// readerPart returns the part that sends what r gives; name is the multipart part's, ""
// for a whole body.
func readerPart(name string, r io.Reader) bodyPart { return bodyPart{r: r, name: name} }

// failed returns err of p, said with p's name.
func (p *bodyPart) failed(err error) error {
	if p.name == "" {
		return err
	}
	return fmt.Errorf("part %q: %w", p.name, err)
}

// prepare decides how each part is sent; see source.
func (s *source) prepare() error {
	if s.prepared {
		return s.err
	}
	s.prepared = true
	size, known := int64(0), true
	for i := range s.parts {
		p := &s.parts[i]
		size += int64(len(p.data))
		switch r := p.r.(type) {
		case nil:
			continue
		case *reopener:
			p.open, known = r.open, false
			continue
		case io.Seeker:
			if start, err := r.Seek(0, io.SeekCurrent); err == nil {
				end, err := r.Seek(0, io.SeekEnd)
				if err == nil {
					_, err = r.Seek(start, io.SeekStart)
				}
				if err != nil {
					s.err = p.failed(err)
					return s.err
				}
				p.seek, p.start, p.n = r, start, max(end-start, 0)
				p.at, _ = r.(io.ReaderAt)
				size += p.n
				continue
			}
			// Not really seekable (a pipe): read ahead as any other reader.
		}
		head, err := readAhead(p.r, BufferedBodyLimit)
		if err != nil {
			s.err = p.failed(err)
			return s.err
		}
		p.data = append(p.data, head...)
		size += int64(len(head))
		if len(head) > BufferedBodyLimit {
			p.rest, s.once, known = p.r, true, false
		}
	}
	s.size = -1
	if known {
		s.size = size
	}
	return nil
}

// readAhead reads r until its end or until it has more than limit bytes.
func readAhead(r io.Reader, limit int) ([]byte, error) {
	var buf bytes.Buffer
	_, err := io.Copy(&buf, io.LimitReader(r, int64(limit)+1))
	return buf.Bytes(), err
}

// replays reports whether every attempt can be sent the body.
func (s *source) replays() bool { return !s.once }

// reader returns a reader of the whole body for one attempt; a body with a part that
// can be read once gives one reader only, then runtime.ErrBodyNotReplayable.
func (s *source) reader() (io.ReadCloser, error) {
	if err := s.prepare(); err != nil {
		return nil, err
	}
	if s.once {
		if s.handed {
			return nil, runtime.ErrBodyNotReplayable
		}
		s.handed = true
	}
	var (
		readers []io.Reader
		closers []io.Closer
	)
	fail := func(err error) (io.ReadCloser, error) {
		for _, c := range closers {
			c.Close()
		}
		return nil, err
	}
	for i := range s.parts {
		p := &s.parts[i]
		if len(p.data) > 0 {
			readers = append(readers, bytes.NewReader(p.data))
		}
		switch {
		case p.at != nil:
			readers = append(readers, io.NewSectionReader(p.at, p.start, p.n))
		case p.seek != nil:
			if _, err := p.seek.Seek(p.start, io.SeekStart); err != nil {
				return fail(p.failed(err))
			}
			readers = append(readers, io.LimitReader(p.r, p.n))
		case p.open != nil:
			rc, err := p.open()
			if err != nil {
				return fail(p.failed(err))
			}
			if rc == nil {
				return fail(p.failed(errors.New("the function given to Reopen returned a nil reader")))
			}
			readers, closers = append(readers, rc), append(closers, rc)
		case p.rest != nil:
			readers = append(readers, p.rest)
		}
	}
	return &bodyReader{Reader: io.MultiReader(readers...), closers: closers}, nil
}

// bodyReader reads a source for one attempt, and closes the readers it opened for it.
type bodyReader struct {
	io.Reader
	closers []io.Closer
}

func (b *bodyReader) Close() error {
	var errs []error
	for _, c := range b.closers {
		errs = append(errs, c.Close())
	}
	b.closers = nil
	return errors.Join(errs...)
}

// inMemory returns the body as one reader of bytes when every part is bytes, which
// net/http sends with its length and replays itself; nil otherwise.
func (s *source) inMemory() *bytes.Reader {
	var all []byte
	for _, p := range s.parts {
		if p.r != nil {
			return nil
		}
		all = append(all, p.data...)
	}
	return bytes.NewReader(all)
}
