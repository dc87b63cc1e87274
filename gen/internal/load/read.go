package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// The read step of Load, and the reading of every other file: the bytes of a file,
// within the budget, refused unless they are UTF-8 text without control characters; the
// $ref'd files only inside the spec's folder tree.

// read is the pipeline's first step: the file's bytes, within budget, refused unless they
// are UTF-8 text without control characters.
func (s *Spec) read(budget *int64) ([]byte, error) {
	data, err := readCapped(s.Path, budget)
	if err != nil {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path}, Msg: err.Error()}}
	}
	if enc := utf32(data); enc != "" {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path, Line: 1, Col: 1}, Msg: "malformed document: the file looks like " + enc,
			Fix: "save the file as UTF-8 text"}}
	}
	if line, col, msg := checkText(data); msg != "" {
		return nil, source.ErrorList{{Pos: source.Pos{File: s.Path, Line: line, Col: col}, Msg: "malformed document: " + msg,
			Fix: "save the file as UTF-8 text, writing control characters as escapes"}}
	}
	return data, nil
}

// checkText returns the line and column (in bytes) of the first byte of data that is not
// UTF-8, or is a control character neither YAML nor JSON allows (any below U+0020 but
// tab, line feed and carriage return), and what is wrong with it. Documents that start
// with a UTF-16 or UTF-32 byte order mark are left to the parser.
func checkText(data []byte) (line, col int, msg string) {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}) {
		return 0, 0, ""
	}
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return line, col, "invalid UTF-8"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r':
			return line, col, fmt.Sprintf("control character %U is not allowed", r)
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += n
		}
		i += n
	}
	return 0, 0, ""
}

// readCapped reads a regular file, failing when it is larger than what remains of budget.
// Anything else (a FIFO, a device) is refused before it is opened, and opening does not
// wait for a FIFO's writer should one replace the file meanwhile.
func readCapped(path string, budget *int64) ([]byte, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, cleanOSError(err)
	} else if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, cleanOSError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, cleanOSError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > *budget {
		return nil, fmt.Errorf("file too large: %d bytes, limit %d", fi.Size(), *budget)
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, *budget+1)); err != nil {
		return nil, cleanOSError(err)
	}
	data := buf.Bytes()
	if int64(len(data)) > *budget {
		return nil, fmt.Errorf("file too large: over %d bytes", *budget)
	}
	*budget -= int64(len(data))
	return data, nil
}

func cleanOSError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// confinedReader reads $ref'd files, and only those inside the spec's folder tree.
type confinedReader struct {
	spec   *Spec
	dir    string // the spec's folder, absolute
	root   string // the same, symbolic links resolved
	budget *int64
}

func newConfinedReader(s *Spec, path string, budget *int64) (*confinedReader, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, cleanOSError(err)
	}
	return &confinedReader{spec: s, dir: dir, root: root, budget: budget}, nil
}

func (r *confinedReader) read(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	if (u.Scheme != "" && u.Scheme != "file") || u.Host != "" || u.Opaque != "" || u.User != nil {
		return nil, &refEscapeError{ref: u.String(), why: "only files inside the spec's folder can be referenced, not URLs"}
	}
	abs, err := filepath.Abs(filepath.FromSlash(u.Path))
	if err != nil {
		return nil, err
	}
	data, err := r.readFile(abs)
	if err != nil {
		if re, ok := err.(*refEscapeError); ok {
			re.ref = u.Path
		}
		return nil, err
	}
	r.spec.Files.Add(u.String(), data)
	return data, nil
}

// readFile reads the file at abs, an absolute path, if it is inside the spec's folder
// tree, symbolic links resolved.
func (r *confinedReader) readFile(abs string) ([]byte, error) {
	outside := &refEscapeError{ref: abs, why: "it is outside the spec's folder"}
	// Checked by name first, so that nothing outside is even looked at, then again with
	// symbolic links resolved.
	if !within(r.dir, abs) {
		return nil, outside
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, cleanOSError(err)
	}
	if !within(r.root, real) {
		return nil, outside
	}
	return readCapped(real, r.budget)
}

// within reports whether path lies inside dir (both absolute and clean).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

type refEscapeError struct{ ref, why string }

func (e *refEscapeError) Error() string {
	return fmt.Sprintf("$ref to %s is not allowed: %s", source.Quote(e.ref), e.why)
}

// utf32 says which UTF-32 text data looks like, by its byte order mark or by the zero
// bytes around its first character, or "".
func utf32(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}):
		return "UTF-32 little-endian text (it starts with that byte order mark)"
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return "UTF-32 big-endian text (it starts with that byte order mark)"
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] == 0 && data[3] == 0:
		return "UTF-32 little-endian text (each character is followed by three zero bytes)"
	case len(data) >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] != 0:
		return "UTF-32 big-endian text (each character is preceded by three zero bytes)"
	}
	return ""
}
