// Package membody is the response body the retry engine has read whole into memory
// (runtime.Policy.ReadBody), so that runtime/wire can decode it where it lies instead of
// reading it through a decoder's buffer again.
package membody

import "io"

// Body is a response body read whole into memory. Close does nothing: the bytes stay,
// and may be read after it.
type Body struct {
	data []byte
	off  int
}

// Set makes b hold data, none of it read.
func (b *Body) Set(data []byte) { *b = Body{data: data} }

func (b *Body) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

// WriteTo writes the bytes not read yet to w, as io.Copy asks.
func (b *Body) WriteTo(w io.Writer) (int64, error) {
	rest := b.data[b.off:]
	n, err := w.Write(rest)
	b.off += n
	if n != len(rest) && err == nil {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

func (b *Body) Close() error { return nil }

// Unread returns the bytes not read yet, without reading them. The caller must not
// change them.
func (b *Body) Unread() []byte { return b.data[b.off:len(b.data):len(b.data)] }

// Next returns up to limit of the bytes not read yet (none for a negative limit), and
// counts them read.
func (b *Body) Next(limit int64) []byte {
	end := len(b.data)
	if rest := int64(end - b.off); limit < rest {
		end = b.off + int(max(limit, 0))
	}
	out := b.data[b.off:end:end]
	b.off = end
	return out
}
