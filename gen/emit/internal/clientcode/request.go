package clientcode

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// request is one call being built. Its methods record the first problem, which do
// reports before anything is sent.
type request struct {
	method      string
	path        strings.Builder // percent-encoded
	query       url.Values
	header      http.Header
	cookies     []string
	body        io.Reader // nil: no body
	contentType string
	err         error
}

func newRequest(method string) *request {
	return &request{method: method, query: url.Values{}, header: http.Header{}}
}

func (r *request) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// addPath appends literal, already percent-encoded path text.
func (r *request) addPath(escaped string) { r.path.WriteString(escaped) }

// pathParam appends a path parameter, serialized by style ("simple", "label" or
// "matrix") and escaped so that it stays one path segment: "../admin" becomes
// "..%2Fadmin", ".." becomes "%2E%2E".
func (r *request) pathParam(name, style string, explode bool, v any) {
	x, err := plainStyle(style, v)
	if err != nil {
		r.fail(fmt.Errorf("path parameter %q: %w", name, err))
		return
	}
	if x == nil || x == "" {
		r.fail(fmt.Errorf("path parameter %q is empty", name))
		return
	}
	prefix, sep := "", ","
	switch style {
	case "label":
		prefix = "."
		if explode {
			sep = "."
		}
	case "matrix":
		prefix = ";" + pathEscape(name) + "="
		if explode {
			sep = prefix
		}
	}
	r.path.WriteString(prefix)
	switch x := x.(type) {
	case string:
		r.path.WriteString(pathEscape(x))
	case []any:
		for i, item := range x {
			if i > 0 {
				r.path.WriteString(sep)
			}
			r.path.WriteString(pathEscape(plainString(item)))
		}
	case []field:
		for i, f := range x {
			if i > 0 {
				r.path.WriteString(sep)
			}
			r.path.WriteString(pathEscape(f.name))
			if explode {
				r.path.WriteString("=")
			} else {
				r.path.WriteString(",")
			}
			r.path.WriteString(pathEscape(plainString(f.value)))
		}
	}
}

// pathEscape escapes s as one path segment; a segment of dots only is escaped too, so
// that it cannot mean the current or parent directory.
func pathEscape(s string) string {
	if strings.Trim(s, ".") == "" {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// queryParam adds a query parameter serialized by style ("form", "spaceDelimited",
// "pipeDelimited" or "deepObject"). An unset value (nil) adds nothing.
func (r *request) queryParam(name, style string, explode bool, v any) {
	x, err := plainStyle(style, v)
	if err != nil {
		r.fail(fmt.Errorf("query parameter %q: %w", name, err))
		return
	}
	switch x := x.(type) {
	case string:
		r.query.Add(name, x)
	case []any:
		if style == "deepObject" {
			addDeep(r.query, name, x)
			return
		}
		if explode {
			for _, item := range x {
				r.query.Add(name, plainString(item))
			}
			return
		}
		sep := ","
		switch style {
		case "spaceDelimited":
			sep = " "
		case "pipeDelimited":
			sep = "|"
		}
		r.query.Add(name, joinPlain(x, sep))
	case []field:
		switch {
		case style == "deepObject":
			addDeep(r.query, name, x)
		case explode:
			for _, f := range x {
				r.query.Add(f.name, plainString(f.value))
			}
		default:
			r.query.Add(name, joinFields(x, ","))
		}
	}
}

// setQuery sets a query pair written into the spec's path key.
func (r *request) setQuery(name, value string) { r.query.Set(name, value) }

// headerParam sets a header parameter (style "simple"). A value with a control character,
// CR and LF included, fails the call before anything is sent.
func (r *request) headerParam(name, style string, explode bool, v any) {
	x, err := plainStyle(style, v)
	if err != nil {
		r.fail(fmt.Errorf("header parameter %q: %w", name, err))
		return
	}
	var s string
	switch x := x.(type) {
	case nil:
		return
	case string:
		s = x
	case []any:
		s = joinPlain(x, ",")
	case []field:
		if explode {
			s = joinPairs(x, "=", ",")
		} else {
			s = joinFields(x, ",")
		}
	}
	if !validHeaderValue(s) {
		r.fail(fmt.Errorf("header parameter %q: value contains a control character", name))
		return
	}
	r.header.Set(name, s)
}

// cookieParam adds a cookie parameter (style "form"). A value with a control character or
// a semicolon fails the call before anything is sent.
func (r *request) cookieParam(name, style string, explode bool, v any) {
	x, err := plainStyle(style, v)
	if err != nil {
		r.fail(fmt.Errorf("cookie parameter %q: %w", name, err))
		return
	}
	var pairs []string
	switch x := x.(type) {
	case nil:
		return
	case string:
		pairs = append(pairs, name+"="+x)
	case []any:
		if explode {
			for _, item := range x {
				pairs = append(pairs, name+"="+plainString(item))
			}
		} else {
			pairs = append(pairs, name+"="+joinPlain(x, ","))
		}
	case []field:
		if explode {
			for _, f := range x {
				pairs = append(pairs, f.name+"="+plainString(f.value))
			}
		} else {
			pairs = append(pairs, name+"="+joinFields(x, ","))
		}
	}
	for _, p := range pairs {
		if !validHeaderValue(p) || strings.Contains(p, ";") {
			r.fail(fmt.Errorf("cookie parameter %q: value contains a control character or a semicolon", name))
			return
		}
	}
	r.cookies = append(r.cookies, pairs...)
}

func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// jsonBody sends v as JSON.
func (r *request) jsonBody(contentType string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		r.fail(fmt.Errorf("request body: %w", err))
		return
	}
	r.body, r.contentType = bytes.NewReader(data), contentType
}

// formBody sends the object v as application/x-www-form-urlencoded: properties named in
// deepObject as "name[key]=value", the others in form style.
func (r *request) formBody(contentType string, v any, deepObject ...string) {
	x, err := plain(v)
	if err != nil {
		r.fail(fmt.Errorf("request body: %w", err))
		return
	}
	values := url.Values{}
	fields, _ := x.([]field)
	for _, f := range fields {
		if slices.Contains(deepObject, f.name) {
			addDeep(values, f.name, f.value)
			continue
		}
		switch fv := f.value.(type) {
		case string:
			values.Add(f.name, fv)
		case []any:
			for _, item := range fv {
				values.Add(f.name, plainString(item))
			}
		case []field:
			for _, sub := range fv {
				values.Add(sub.name, plainString(sub.value))
			}
		}
	}
	r.body, r.contentType = strings.NewReader(values.Encode()), contentType
}

// rawBody sends body as it is. Bytes, strings and readers that can seek can be sent
// again on a retry; any other reader is sent once, and the call is not retried.
func (r *request) rawBody(contentType string, body io.Reader) {
	if body != nil {
		r.body, r.contentType = body, contentType
	}
}

// multipartBody sends the parts written to m.
func (r *request) multipartBody(m *multipartWriter) {
	if err := m.w.Close(); err != nil {
		m.fail(err)
	}
	if m.err != nil {
		r.fail(fmt.Errorf("request body: %w", m.err))
		return
	}
	r.body, r.contentType = bytes.NewReader(m.buf.Bytes()), m.w.FormDataContentType()
}

// multipartWriter builds a multipart/form-data body in memory, so that it can be sent
// again on a retry.
type multipartWriter struct {
	buf bytes.Buffer
	w   *multipart.Writer
	err error
}

func newMultipart() *multipartWriter {
	m := &multipartWriter{}
	m.w = multipart.NewWriter(&m.buf)
	return m
}

func (m *multipartWriter) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// field writes a form field: a scalar as text, an array as one part per item, an object
// as JSON. An unset value (nil) writes nothing.
func (m *multipartWriter) field(name string, v any) {
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
	case []field:
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

// file writes a file part read from rd; its file name is rd's base name when rd is a
// file, else the field name. A nil reader writes nothing.
func (m *multipartWriter) file(name string, rd io.Reader) {
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

// files writes one file part per reader.
func (m *multipartWriter) files(name string, rds []io.Reader) {
	for _, rd := range rds {
		m.file(name, rd)
	}
}

// withKey makes a declared Idempotency-Key parameter the call's idempotency key when the
// caller set it; options passed to the call still win.
func withKey(key string, opts []CallOption) []CallOption {
	if key == "" {
		return opts
	}
	return append([]CallOption{runtime.WithIdempotencyKey(key)}, opts...)
}

// do sends r under policy p: it builds the *http.Request, applies the client's request
// editors once, and hands it to the engine.
func (c *Client) do(ctx context.Context, r *request, p *runtime.Policy, accept string, opts []CallOption) (*http.Response, error) {
	if r.err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path.String(), r.err)
	}
	u := *c.baseURL
	u.RawPath = c.baseURL.RawPath + r.path.String()
	path, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.method, u.RawPath, err)
	}
	u.Path = path
	u.RawQuery = r.query.Encode()
	req, err := http.NewRequestWithContext(ctx, r.method, "", r.body)
	if err != nil {
		return nil, err
	}
	req.URL, req.Host = &u, u.Host
	if err := replayable(req, r.body); err != nil {
		return nil, fmt.Errorf("%s %s: request body: %w", r.method, u.Redacted(), err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if len(r.cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(r.cookies, "; "))
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	for _, edit := range c.editors {
		if err := edit(ctx, req); err != nil {
			return nil, err
		}
	}
	return c.engine.Do(ctx, req, p, opts...)
}

// replayable lets the engine send a reader body again: http.NewRequest already does so
// for bytes and strings; a reader that can seek is read from its current offset on every
// attempt. Any other reader stays single-use.
func replayable(req *http.Request, body io.Reader) error {
	if body == nil || req.GetBody != nil {
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

// decodeJSON decodes resp's body into v and closes it. An empty body leaves v unset.
func decodeJSON(resp *http.Response, v any) error {
	defer closeBody(resp)
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil && err != io.EOF {
		return fmt.Errorf("decode %d response: %w", resp.StatusCode, err)
	}
	return nil
}

// readBody reads resp's whole body into *out and closes it.
func readBody(resp *http.Response, out *[]byte) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read %d response: %w", resp.StatusCode, err)
	}
	*out = data
	return nil
}

// closeBody drains a little of resp's body, so that the connection can be reused, and
// closes it.
func closeBody(resp *http.Response) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// discard closes a response whose body the operation does not declare.
func discard(resp *http.Response) error {
	_ = closeBody(resp)
	return nil
}

// decodeError decodes the body of a failed call's response into the error model pick
// chooses for its status, and attaches it to the *APIError as Model, so that errors.As
// reaches it. err is returned either way.
func decodeError(err error, pick func(status int) any) error {
	var apiErr *runtime.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode == 0 || len(apiErr.Body) == 0 {
		return err
	}
	if m := pick(apiErr.StatusCode); m != nil && json.Unmarshal(apiErr.Body, m) == nil {
		apiErr.Model = m
	}
	return err
}

// modelErrorText is the Error text of an error model: its JSON, shortened.
func modelErrorText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "error response"
	}
	const max = 512
	if len(data) > max {
		return string(data[:max]) + "…"
	}
	return string(data)
}

// field is one member of an object value.
type field struct {
	name  string
	value any
}

// plainStyle is plain, except that the style "json" (a parameter described by content
// rather than a schema) writes the value as one JSON text.
func plainStyle(style string, v any) (any, error) {
	if style != "json" {
		return plain(v)
	}
	if isNil(v) {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(data), nil
}

// plain reduces a parameter value to a string, a []any of plain values, or an object
// ([]field, sorted by name); nil means unset. Objects and other values with a JSON form
// are reduced through their JSON.
func plain(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case []byte:
		if x == nil {
			return nil, nil
		}
		return base64.StdEncoding.EncodeToString(x), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return plain(rv.Elem().Interface())
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		if _, ok := v.(json.Marshaler); !ok {
			items := make([]any, 0, rv.Len())
			for i := range rv.Len() {
				item, err := plain(rv.Index(i).Interface())
				if err != nil {
					return nil, err
				}
				items = append(items, item)
			}
			return items, nil
		}
	case reflect.Map:
		if rv.IsNil() {
			return nil, nil
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return plainJSON(x), nil
}

// plainJSON reduces a decoded JSON value as plain does.
func plainJSON(x any) any {
	switch x := x.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		for i := range x {
			x[i] = plainJSON(x[i])
		}
		return x
	case map[string]any:
		fields := make([]field, 0, len(x))
		for k, v := range x {
			fields = append(fields, field{name: k, value: plainJSON(v)})
		}
		slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
		return fields
	}
	return nil
}

// plainString writes a plain value as one string: arrays and objects comma-separated.
func plainString(x any) string {
	switch x := x.(type) {
	case string:
		return x
	case []any:
		return joinPlain(x, ",")
	case []field:
		return joinFields(x, ",")
	}
	return ""
}

func joinPlain(items []any, sep string) string {
	var b strings.Builder
	for i, item := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(plainString(item))
	}
	return b.String()
}

// joinFields writes an object unexploded: "k1,v1,k2,v2".
func joinFields(fields []field, sep string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f.name)
		b.WriteString(sep)
		b.WriteString(plainString(f.value))
	}
	return b.String()
}

// joinPairs writes an object exploded: "k1=v1,k2=v2".
func joinPairs(fields []field, eq, sep string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(f.name)
		b.WriteString(eq)
		b.WriteString(plainString(f.value))
	}
	return b.String()
}

// addDeep adds x in deepObject style: "name[key]=value", nested objects and arrays as
// "name[key][sub]" and "name[key][0]".
func addDeep(values url.Values, name string, x any) {
	switch x := x.(type) {
	case string:
		values.Add(name, x)
	case []any:
		for i, item := range x {
			addDeep(values, name+"["+strconv.Itoa(i)+"]", item)
		}
	case []field:
		for _, f := range x {
			addDeep(values, name+"["+f.name+"]", f.value)
		}
	}
}
