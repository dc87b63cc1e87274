package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/source"
)

// yamlSafeJSON returns a JSON document written so that the YAML parser, which kin-openapi
// reads every document with, reads each of its strings as encoding/json does, and the
// edits that moved columns. Data that is not JSON is returned as it is.
//
// JSON lets a string hold what a YAML double-quoted scalar does not:
//   - surrogate escapes: a pair ("\ud83d\udc4d") is written as YAML's 8-digit escape
//     ("\U0001F44D"), and a lone one as "\uFFFD", the character encoding/json reads it as;
//   - characters YAML does not print (DEL, the C1 controls, U+FEFF, U+FFFE, U+FFFF) and
//     the ones it breaks lines at (U+0085, U+2028, U+2029), which are written as escapes.
//
// A byte order mark before the document is not JSON's, but parseJSON and the YAML parser
// skip it.
func yamlSafeJSON(data []byte) ([]byte, []source.Edit) {
	body := bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !needsYAMLEscapes(body) || !json.Valid(body) {
		return data, nil
	}
	w := &yamlSafeWriter{out: make([]byte, 0, len(data)+len(data)/16), line: 1, col: 1}
	w.out = append(w.out, data[:len(data)-len(body)]...)
	w.write(body)
	return w.out, w.edits
}

// needsYAMLEscapes reports whether data has a \u escape or a byte that may start a
// character yamlSafeJSON rewrites: a cheap test that most documents fail.
func needsYAMLEscapes(data []byte) bool {
	return bytes.Contains(data, []byte(`\u`)) || bytes.IndexFunc(data, func(r rune) bool {
		return r >= 0x7F && !yamlPrints(r)
	}) >= 0
}

// yamlPrints reports whether r may stand in a YAML double-quoted scalar as itself (YAML
// 1.2's c-printable, less the line breaks beyond line feed and carriage return).
func yamlPrints(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85, r == 0x2028, r == 0x2029, r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}

// yamlSafeWriter copies a valid JSON document, rewriting what yamlSafeJSON says, and
// records the edits in the document's own lines and columns.
type yamlSafeWriter struct {
	out       []byte
	edits     []source.Edit
	line, col int
}

func (w *yamlSafeWriter) write(data []byte) {
	inString := false
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '\n':
			w.out = append(w.out, c)
			w.line, w.col, i = w.line+1, 1, i+1
			continue
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				w.out = append(w.out, c)
				i++
			}
			w.out = append(w.out, data[i])
			w.line, w.col, i = w.line+1, 1, i+1
			continue
		case c == '"':
			inString = !inString
		case inString && c == '\\':
			i += w.escape(data[i:])
			continue
		case c == 0x7F:
			w.replace(1, `\u007F`)
			i++
			continue
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(data[i:])
			if yamlPrints(r) {
				w.out = append(w.out, data[i:i+n]...)
				w.col++
			} else {
				w.replace(1, fmt.Sprintf(`\u%04X`, r))
			}
			i += n
			continue
		}
		w.out = append(w.out, c)
		w.col++
		i++
	}
}

// escape copies the escape at the start of data, a backslash and what follows it, and
// returns its length.
func (w *yamlSafeWriter) escape(data []byte) int {
	if data[1] != 'u' {
		w.out = append(w.out, data[:2]...)
		w.col += 2
		return 2
	}
	r := hex4(data[2:6])
	switch {
	case r >= 0xD800 && r <= 0xDBFF && len(data) >= 12 && data[6] == '\\' && data[7] == 'u':
		if lo := hex4(data[8:12]); lo >= 0xDC00 && lo <= 0xDFFF {
			pair := 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			w.replace(12, fmt.Sprintf(`\U%08X`, pair))
			return 12
		}
		fallthrough
	case r >= 0xD800 && r <= 0xDFFF:
		w.replace(6, `\uFFFD`)
		return 6
	}
	w.out = append(w.out, data[:6]...)
	w.col += 6
	return 6
}

// replace writes text, all ASCII, for the width characters at the current column, and
// records the edit when it moves the columns after it.
func (w *yamlSafeWriter) replace(width int, text string) {
	w.out = append(w.out, text...)
	if len(text) != width {
		w.edits = append(w.edits, source.Edit{Line: w.line, Col: w.col, Width: width, Len: len(text)})
	}
	w.col += width
}

// hex4 reads the four hex digits of a \u escape that json.Valid accepted.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
