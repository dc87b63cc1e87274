package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"unicode"
)

// JSONBody sends v as JSON, with the Content-Type contentType. A nil slice or map, the
// body of a required array or object, is sent as [] or {}.
func (r *Request) JSONBody(contentType string, v any) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() && rv.Type().Elem().Kind() != reflect.Uint8 {
		v = []struct{}{}
	} else if rv.Kind() == reflect.Map && rv.IsNil() {
		v = struct{}{}
	}
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
	styles := make([]FormStyle, len(deepObject))
	for i, name := range deepObject {
		styles[i] = FormStyle{Name: name, Style: QueryDeepObject}
	}
	r.StyledFormBody(contentType, v, styles...)
}

// FormStyle is how StyledFormBody writes one property of a form body: in Style, as a
// query parameter of that name and style would be written.
type FormStyle struct {
	Name  string
	Style QueryStyle
}

// StyledFormBody sends the object v as application/x-www-form-urlencoded, each property
// in the style styles give it, else in form style (explode true): an array [1, 2] as
// "a=1&a=2", or with QueryFormNoExplode as "a=1,2". QueryJSON counts as form style.
func (r *Request) StyledFormBody(contentType string, v any, styles ...FormStyle) {
	x, err := plain(v)
	if err != nil {
		r.fail(fmt.Errorf("request body: %w", err))
		return
	}
	values := url.Values{}
	members, _ := x.([]member)
	for _, m := range members {
		style := QueryForm
		for _, s := range styles {
			if s.Name == m.name && s.Style != QueryJSON {
				style = s.Style
			}
		}
		addStyled(values, m.name, style, m.value)
	}
	r.body, r.contentType = strings.NewReader(values.Encode()), contentType
}

// RawBody sends body as it is, streamed from the reader. Bytes, strings, readers that can
// seek (sent from where they stood) and Reopen's bodies can be sent again on a retry, and
// so can any other reader that ends within BufferedBodyLimit; a longer one is sent once,
// and the call is not retried (runtime.ErrBodyNotReplayable). A nil body sends none.
func (r *Request) RawBody(contentType string, body io.Reader) {
	if body == nil {
		return
	}
	r.contentType = contentType
	switch body.(type) {
	case *bytes.Reader, *strings.Reader, *bytes.Buffer:
		r.body = body // net/http sends these with their length, and replays them
		return
	case *reopener:
	case io.Seeker:
		r.body = body // see replayable
		return
	}
	r.src = &source{parts: []bodyPart{readerPart("", body)}}
}

// MultipartBody sends the parts written to m as multipart/form-data, each file streamed
// from its reader as the body is sent (see Multipart).
func (r *Request) MultipartBody(m *Multipart) {
	if err := m.w.Close(); err != nil {
		m.fail(err)
	}
	if m.err != nil {
		r.fail(fmt.Errorf("request body: %w", m.err))
		return
	}
	m.flush()
	r.contentType = m.w.FormDataContentType()
	if b := m.src.inMemory(); b != nil {
		r.body = b
		return
	}
	r.src = &m.src
}

// Multipart builds a multipart/form-data body: its fields in memory, its files as the
// readers they are, read only when the body is sent, so that a large file never sits in
// memory. The body is the one multipart.Writer writes, byte for byte. A file that can
// seek, is a Reopen body or ends within BufferedBodyLimit can be sent again on a retry;
// with any other the call is not retried. Its methods record the first problem, which
// Request.MultipartBody reports.
type Multipart struct {
	buf bytes.Buffer // what the writer wrote since the last file
	src source
	w   *multipart.Writer
	err error
}

// flush moves what the writer wrote into a part of the body.
func (m *Multipart) flush() {
	if m.buf.Len() > 0 {
		m.src.parts = append(m.src.parts, bodyPart{data: bytes.Clone(m.buf.Bytes())})
		m.buf.Reset()
	}
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

// FieldAs writes a form field with the Content-Type the spec's encoding gives it: JSON
// for a JSON media type, else the value as Field writes it, one part per array item. An
// unset value (nil) writes nothing. A content type that is not one valid media type, or
// has a control character, fails the body (see File).
func (m *Multipart) FieldAs(name, contentType string, v any) {
	x, err := plain(v)
	if err != nil {
		m.fail(fmt.Errorf("part %q: %w", name, err))
		return
	}
	var texts []string
	switch x := x.(type) {
	case nil:
		return
	case string:
		texts = []string{x}
	case []any:
		for _, item := range x {
			texts = append(texts, plainString(item))
		}
	case []member:
		texts = []string{""}
	}
	if err := checkPartType(contentType); err != nil {
		m.fail(fmt.Errorf("part %q: %w", name, err))
		return
	}
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/json" || strings.HasSuffix(mt, "+json") {
		data, err := json.Marshal(v)
		if err != nil {
			m.fail(fmt.Errorf("part %q: %w", name, err))
			return
		}
		texts = []string{string(data)}
	} else if _, isObject := x.([]member); isObject {
		m.Field(name, v)
		return
	}
	for _, text := range texts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(name)+`"`)
		h.Set("Content-Type", contentType)
		part, err := m.w.CreatePart(h)
		if err != nil {
			m.fail(err)
			return
		}
		_, err = io.WriteString(part, text)
		m.fail(err)
	}
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "%0D", "\n", "%0A")

// File is the content of a file part of a multipart body: what Body reads, sent under
// Name (the part's filename) with ContentType.
type File struct {
	// Name is the filename sent; when empty, the base name of Body's Name method (an
	// *os.File has one), else the property's name. A name with a control character (CR
	// and LF included) fails the call before anything is sent.
	Name string
	// ContentType is the part's Content-Type; when empty, the one the spec's encoding
	// gives the property, else application/octet-stream. One media type, parameters
	// allowed ("text/plain; charset=utf-8"): anything else, or a control character, fails
	// the call before anything is sent.
	ContentType string
	// Body is the content. A nil Body writes no part.
	Body io.Reader
}

// File writes the file part name from f; contentType is the one the spec's encoding gives
// the property ("" when it gives none, or several). A nil f or a nil Body writes nothing.
func (m *Multipart) File(name, contentType string, f *File) {
	if f == nil || f.Body == nil {
		return
	}
	if rv := reflect.ValueOf(f.Body); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return
	}
	filename := f.Name
	if filename == "" {
		if n, ok := f.Body.(interface{ Name() string }); ok && n.Name() != "" {
			filename = filepath.Base(n.Name())
		} else {
			filename = name
		}
	}
	ct := f.ContentType
	if ct == "" {
		ct = contentType
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	if strings.ContainsFunc(filename, unicode.IsControl) {
		m.fail(fmt.Errorf("part %q: file name %q has a control character", name, filename))
		return
	}
	if err := checkPartType(ct); err != nil {
		m.fail(fmt.Errorf("part %q: %w", name, err))
		return
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(name)+`"; filename="`+quoteEscaper.Replace(filename)+`"`)
	h.Set("Content-Type", ct)
	if _, err := m.w.CreatePart(h); err != nil {
		m.fail(err)
		return
	}
	// The writer has written the part's header; its content is f.Body's, read when the
	// body is sent, and the writer goes on after it.
	m.flush()
	m.src.parts = append(m.src.parts, readerPart(name, f.Body))
}

// checkPartType refuses a part's Content-Type that would not be one header value naming
// one media type: with a control character (CR or LF would start a header line of its
// own), or not a valid media type, such as a list of them.
func checkPartType(ct string) error {
	if !validHeaderValue(ct) {
		return fmt.Errorf("content type %s has a control character", quoteMedia(ct))
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return fmt.Errorf("content type %s is not a media type: %w", quoteMedia(ct), err)
	}
	return nil
}

// RequiredFile is File for a part the operation requires: a File without a Body fails
// the call before anything is sent, instead of leaving the part out.
func (m *Multipart) RequiredFile(name, contentType string, f *File) {
	if f == nil || f.Body == nil {
		m.fail(fmt.Errorf("multipart part %q is required: its File has no Body", name))
		return
	}
	m.File(name, contentType, f)
}

// Files writes one file part per file, all under name.
func (m *Multipart) Files(name, contentType string, files []File) {
	for i := range files {
		m.File(name, contentType, &files[i])
	}
}

// FilesOf returns files as Files takes them: a generated package's File has File's
// fields.
func FilesOf[F ~struct {
	Name        string
	ContentType string
	Body        io.Reader
}](files []F) []File {
	if files == nil {
		return nil
	}
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = File(f)
	}
	return out
}

// Copy returns a pointer to a copy of *p, for a method that changes a request body the
// caller passed by pointer.
func Copy[T any](p *T) *T {
	c := *p
	return &c
}
