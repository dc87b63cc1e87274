package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// JSONBody sends v as JSON, with the Content-Type contentType.
func (r *Request) JSONBody(contentType string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		r.fail(fmt.Errorf("request body: %w", err))
		return
	}
	r.body, r.contentType = bytes.NewReader(data), contentType
}

// FormBody sends the object v as application/x-www-form-urlencoded: the properties named
// in deepObject as "name[key]=value", the others in form style (explode true).
func (r *Request) FormBody(contentType string, v any, deepObject ...string) {
	x, err := plain(v)
	if err != nil {
		r.fail(fmt.Errorf("request body: %w", err))
		return
	}
	values := url.Values{}
	members, _ := x.([]member)
	for _, m := range members {
		if slices.Contains(deepObject, m.name) {
			addDeep(values, m.name, m.value)
			continue
		}
		switch mv := m.value.(type) {
		case string:
			values.Add(m.name, mv)
		case []any:
			for _, item := range mv {
				values.Add(m.name, plainString(item))
			}
		case []member:
			for _, sub := range mv {
				values.Add(sub.name, plainString(sub.value))
			}
		}
	}
	r.body, r.contentType = strings.NewReader(values.Encode()), contentType
}

// RawBody sends body as it is. Bytes, strings and readers that can seek can be sent again
// on a retry; any other reader is sent once, and the call is not retried. A nil body
// sends none.
func (r *Request) RawBody(contentType string, body io.Reader) {
	if body != nil {
		r.body, r.contentType = body, contentType
	}
}

// MultipartBody sends the parts written to m as multipart/form-data.
func (r *Request) MultipartBody(m *Multipart) {
	if err := m.w.Close(); err != nil {
		m.fail(err)
	}
	if m.err != nil {
		r.fail(fmt.Errorf("request body: %w", m.err))
		return
	}
	r.body, r.contentType = bytes.NewReader(m.buf.Bytes()), m.w.FormDataContentType()
}

// Multipart builds a multipart/form-data body in memory, so that it can be sent again on
// a retry. Its methods record the first problem, which Request.MultipartBody reports.
type Multipart struct {
	buf bytes.Buffer
	w   *multipart.Writer
	err error
}

// NewMultipart returns an empty multipart body.
func NewMultipart() *Multipart {
	m := &Multipart{}
	m.w = multipart.NewWriter(&m.buf)
	return m
}

func (m *Multipart) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// Field writes a form field: a scalar as text, an array as one part per item, an object
// as JSON. An unset value (nil) writes nothing.
func (m *Multipart) Field(name string, v any) {
	x, err := plain(v)
	if err != nil {
		m.fail(fmt.Errorf("part %q: %w", name, err))
		return
	}
	switch x := x.(type) {
	case string:
		m.fail(m.w.WriteField(name, x))
	case []any:
		for _, item := range x {
			m.fail(m.w.WriteField(name, plainString(item)))
		}
	case []member:
		data, err := json.Marshal(v)
		if err != nil {
			m.fail(fmt.Errorf("part %q: %w", name, err))
			return
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(name)+`"`)
		h.Set("Content-Type", "application/json")
		part, err := m.w.CreatePart(h)
		if err != nil {
			m.fail(err)
			return
		}
		_, err = part.Write(data)
		m.fail(err)
	}
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "%0D", "\n", "%0A")

// File writes a file part read from rd; its file name is rd's base name when rd has a
// Name method (an *os.File), else the field name. A nil reader writes nothing.
func (m *Multipart) File(name string, rd io.Reader) {
	if rd == nil {
		return
	}
	if rv := reflect.ValueOf(rd); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return
	}
	filename := name
	if n, ok := rd.(interface{ Name() string }); ok && n.Name() != "" {
		filename = filepath.Base(n.Name())
	}
	part, err := m.w.CreateFormFile(name, filename)
	if err != nil {
		m.fail(err)
		return
	}
	if _, err := io.Copy(part, rd); err != nil {
		m.fail(fmt.Errorf("part %q: %w", name, err))
	}
}

// Files writes one file part per reader, all under name.
func (m *Multipart) Files(name string, rds []io.Reader) {
	for _, rd := range rds {
		m.File(name, rd)
	}
}
