// Package driver calls the methods of generated clients by reflection, for the
// conformance suite. The suite writes a program that registers each client under test
// with Register and calls Main; Main reads a plan of calls (JSON, from the file named by
// its first argument), makes each call with a transport that records the request and
// answers with the plan's response, checks what the method returned, and writes the
// records to standard output as JSON.
//
// The driver judges only what the client returned. The requests it records are judged
// by the suite, with kin-openapi's validator.
package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/wire"
)

// BaseURL is the server URL every client under test is given.
const BaseURL = "http://conformance.test"

// Plan is the calls to make, per registered client.
type Plan struct {
	Clients map[string][]Call `json:"clients"`
}

// Call is one call of one method, and the response that answers it.
type Call struct {
	ID     string `json:"id"`
	Method string `json:"method"` // the Go method name, e.g. "GetPet"
	// PathArgs are the positional arguments after ctx in order, as JSON: the path
	// parameters, then the required query, header and cookie parameters.
	PathArgs []json.RawMessage `json:"pathArgs,omitempty"`
	// Params, when HasParams, fills the params struct: Go field name → JSON value.
	HasParams bool                       `json:"hasParams,omitempty"`
	Params    map[string]json.RawMessage `json:"params,omitempty"`
	// Body is the body argument; nil when the method takes none.
	Body     *Body    `json:"body,omitempty"`
	Response Response `json:"response"`
	Want     Want     `json:"want"`
}

// Body is a body argument.
type Body struct {
	// Mode is "json" (JSON decoded into the argument's type), "fields" (a struct filled by
	// Go field name; io.Reader fields read the text of a JSON string) or "reader" (an
	// io.Reader over Text).
	Mode   string                     `json:"mode"`
	JSON   json.RawMessage            `json:"json,omitempty"`
	Fields map[string]json.RawMessage `json:"fields,omitempty"`
	Text   string                     `json:"text,omitempty"`
}

// Response is what the transport answers.
type Response struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   string            `json:"body,omitempty"`
}

// Want is what the method must return.
type Want struct {
	// OK: a nil error. Otherwise an *runtime.Error with the response's status.
	OK bool `json:"ok"`
	// Value: the first result is not nil (a body was sent and the method decodes it).
	Value bool `json:"value,omitempty"`
	// Field: the field of a multi-response result that must be set.
	Field string `json:"field,omitempty"`
	// Text: the string the result (or Field) must hold, for a body the method reads as
	// text; "" when it is not text.
	Text string `json:"text,omitempty"`
	// Model: the error model's Go type name that runtime.Error.Model must hold, and
	// errors.As must reach.
	Model string `json:"model,omitempty"`
}

// Record is what happened in one call.
type Record struct {
	ID       string    `json:"id"`
	Requests []Request `json:"requests"`
	// Problem is what the method did wrong; "" when it returned what the plan wants.
	Problem string `json:"problem,omitempty"`
}

// Request is a request the client sent.
type Request struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body,omitempty"`
}

// NewClient makes a client under test that sends with hc.
type NewClient func(baseURL string, hc *http.Client) (any, error)

type registered struct {
	newClient NewClient
	noRetry   reflect.Value // the package's []CallOption that turns retries off
	models    map[string]reflect.Type
}

var clients = map[string]registered{}

// Register adds a client under name. noRetry is the package's call options that turn
// retries off, e.g. []client.CallOption{client.WithoutRetry()}. models maps the Go names
// of its error models to their pointer types, e.g. "Problem" to *Problem.
func Register(name string, newClient NewClient, noRetry any, models map[string]reflect.Type) {
	clients[name] = registered{newClient, reflect.ValueOf(noRetry), models}
}

// Main runs the plan named by os.Args[1] and writes the records, per client, to
// standard output.
func Main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: driver plan.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var plan Plan
	if err := json.Unmarshal(data, &plan); err != nil {
		fmt.Fprintln(os.Stderr, "plan:", err)
		os.Exit(1)
	}
	out := map[string][]Record{}
	names := make([]string, 0, len(plan.Clients))
	for name := range plan.Clients {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		reg, ok := clients[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no client registered as %q\n", name)
			os.Exit(1)
		}
		for _, c := range plan.Clients[name] {
			out[name] = append(out[name], run(reg, c))
		}
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// transport records each request and answers with one planned response.
type transport struct {
	resp Response
	reqs []Request
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	h := req.Header.Clone()
	if req.Host != "" && req.Host != req.URL.Host {
		h.Set("Host", req.Host)
	}
	t.reqs = append(t.reqs, Request{Method: req.Method, URL: req.URL.String(), Header: h, Body: body})
	header := http.Header{}
	for k, v := range t.resp.Header {
		header.Set(k, v)
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", t.resp.Status, http.StatusText(t.resp.Status)),
		StatusCode:    t.resp.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(strings.NewReader(t.resp.Body)),
		ContentLength: int64(len(t.resp.Body)),
		Request:       req,
	}, nil
}

func run(reg registered, c Call) (rec Record) {
	rec.ID = c.ID
	defer func() {
		if p := recover(); p != nil {
			rec.Problem = fmt.Sprintf("panic: %v", p)
		}
	}()
	tr := &transport{resp: c.Response}
	defer func() { rec.Requests = tr.reqs }()
	hc := &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	client, err := reg.newClient(BaseURL, hc)
	if err != nil {
		rec.Problem = "NewClient: " + err.Error()
		return rec
	}
	m := reflect.ValueOf(client).MethodByName(c.Method)
	if !m.IsValid() {
		rec.Problem = fmt.Sprintf("the client has no method %s", c.Method)
		return rec
	}
	args, err := arguments(m.Type(), c, reg.noRetry)
	if err != nil {
		rec.Problem = fmt.Sprintf("arguments of %s: %v", c.Method, err)
		return rec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args[0] = reflect.ValueOf(ctx)
	out := m.CallSlice(args)
	rec.Problem = check(reg, c, out)
	return rec
}

var (
	contextType = reflect.TypeFor[context.Context]()
	readerType  = reflect.TypeFor[io.Reader]()
	errorType   = reflect.TypeFor[error]()
	fileType    = reflect.TypeFor[wire.File]()
)

// isFile reports a generated package's File, which has wire.File's fields.
func isFile(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.Name() == "File" && t.ConvertibleTo(fileType)
}

// newFile returns a File of type t holding raw.
func newFile(t reflect.Type, raw json.RawMessage) reflect.Value {
	return reflect.ValueOf(wire.File{Name: "sample.bin", Body: readerOf(raw)}).Convert(t)
}

// arguments builds the method's arguments: ctx, the positional arguments (path
// parameters, then required parameters), the params struct,
// the body, then a call option that turns retries off (the planned response is the
// answer to every attempt; retrying it only takes time).
func arguments(t reflect.Type, c Call, noRetry reflect.Value) ([]reflect.Value, error) {
	n := t.NumIn()
	if n < 2 || t.In(0) != contextType || !t.IsVariadic() || t.In(n-1) != noRetry.Type() {
		return nil, fmt.Errorf("signature %s is not (ctx, ..., opts ...CallOption)", t)
	}
	want := 2 + len(c.PathArgs)
	if c.HasParams {
		want++
	}
	if c.Body != nil {
		want++
	}
	if n != want {
		return nil, fmt.Errorf("signature %s takes %d arguments, the model says %d", t, n, want)
	}
	args := make([]reflect.Value, n)
	i := 1
	for k, raw := range c.PathArgs {
		v, err := value(t.In(i), raw)
		if err != nil {
			return nil, fmt.Errorf("path argument %d: %w", k, err)
		}
		args[i] = v
		i++
	}
	if c.HasParams {
		v, err := fields(t.In(i), c.Params)
		if err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
		args[i] = v
		i++
	}
	if c.Body != nil {
		v, err := body(t.In(i), c.Body)
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		args[i] = v
		i++
	}
	args[i] = noRetry
	return args, nil
}

func body(t reflect.Type, b *Body) (reflect.Value, error) {
	switch b.Mode {
	case "json":
		return value(t, b.JSON)
	case "fields":
		return fields(t, b.Fields)
	case "reader":
		if !readerType.AssignableTo(t) && t != readerType {
			return reflect.Value{}, fmt.Errorf("a reader body for an argument of type %s", t)
		}
		v := reflect.New(t).Elem()
		v.Set(reflect.ValueOf(strings.NewReader(b.Text)))
		return v, nil
	}
	return reflect.Value{}, fmt.Errorf("unknown body mode %q", b.Mode)
}

// fields returns a value of t, a struct or a pointer to one, with the named fields set.
func fields(t reflect.Type, values map[string]json.RawMessage) (reflect.Value, error) {
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%s is not a struct", t)
	}
	s := reflect.New(st)
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := s.Elem().FieldByName(name)
		if !f.IsValid() {
			return reflect.Value{}, fmt.Errorf("%s has no field %s", st, name)
		}
		v, err := value(f.Type(), values[name])
		if err != nil {
			return reflect.Value{}, fmt.Errorf("field %s: %w", name, err)
		}
		f.Set(v)
	}
	if t.Kind() == reflect.Pointer {
		return s, nil
	}
	return s.Elem(), nil
}

// value decodes raw into a value of t. Readers read the text of a JSON string (or the
// JSON itself); other types decode the JSON with encoding/json, as a caller's data would.
func value(t reflect.Type, raw json.RawMessage) (reflect.Value, error) {
	switch {
	case t == readerType:
		return reflect.ValueOf(readerOf(raw)).Convert(readerType), nil
	case isFile(t):
		return newFile(t, raw), nil
	case t.Kind() == reflect.Pointer && isFile(t.Elem()):
		v := reflect.New(t.Elem())
		v.Elem().Set(newFile(t.Elem(), raw))
		return v, nil
	case t.Kind() == reflect.Slice && isFile(t.Elem()):
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return reflect.Value{}, err
		}
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			s.Index(i).Set(newFile(t.Elem(), item))
		}
		return s, nil
	case t.Kind() == reflect.Slice && t.Elem() == readerType:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return reflect.Value{}, err
		}
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			s.Index(i).Set(reflect.ValueOf(readerOf(item)))
		}
		return s, nil
	}
	v := reflect.New(t)
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return v.Elem(), nil
}

func readerOf(raw json.RawMessage) io.Reader {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.NewReader(s)
	}
	return bytes.NewReader(raw)
}

// check compares what the method returned with what the call wants.
func check(reg registered, c Call, out []reflect.Value) string {
	if len(out) == 0 || out[len(out)-1].Type() != errorType {
		return "the method does not return an error last"
	}
	var err error
	if e := out[len(out)-1]; !e.IsNil() {
		err = e.Interface().(error)
	}
	if c.Want.OK {
		if err != nil {
			return fmt.Sprintf("status %d: want a result, got error: %v", c.Response.Status, err)
		}
		if len(out) == 2 && (c.Want.Value || c.Want.Field != "") {
			v := out[0]
			if isNil(v) {
				return fmt.Sprintf("status %d: the result is nil", c.Response.Status)
			}
			if c.Want.Field != "" {
				for v.Kind() == reflect.Pointer {
					v = v.Elem()
				}
				if v.Kind() != reflect.Struct {
					return fmt.Sprintf("status %d: the result %s is not a struct with a field %s", c.Response.Status, v.Type(), c.Want.Field)
				}
				f := v.FieldByName(c.Want.Field)
				if !f.IsValid() {
					return fmt.Sprintf("status %d: the result %s has no field %s", c.Response.Status, v.Type(), c.Want.Field)
				}
				if f.IsZero() {
					return fmt.Sprintf("status %d: the result's field %s is not set", c.Response.Status, c.Want.Field)
				}
				v = f
			}
			if c.Want.Text != "" && (v.Kind() != reflect.String || v.String() != c.Want.Text) {
				return fmt.Sprintf("status %d: the result is %s, want the text %q", c.Response.Status, oneLine(v), c.Want.Text)
			}
		}
		return ""
	}
	if err == nil {
		return fmt.Sprintf("status %d: want an error, got none", c.Response.Status)
	}
	var apiErr *runtime.Error
	if !errors.As(err, &apiErr) {
		return fmt.Sprintf("status %d: the error is not an *APIError: %v", c.Response.Status, err)
	}
	if apiErr.StatusCode != c.Response.Status {
		return fmt.Sprintf("status %d: the *APIError has status %d: %v", c.Response.Status, apiErr.StatusCode, err)
	}
	if c.Want.Model == "" {
		return ""
	}
	mt, ok := reg.models[c.Want.Model]
	if !ok {
		return fmt.Sprintf("status %d: error model %s is not registered", c.Response.Status, c.Want.Model)
	}
	if apiErr.Model == nil {
		return fmt.Sprintf("status %d: APIError.Model is nil, want a %s", c.Response.Status, c.Want.Model)
	}
	if got := reflect.TypeOf(apiErr.Model); got != mt {
		return fmt.Sprintf("status %d: APIError.Model is a %s, want a %s", c.Response.Status, got, mt)
	}
	if mt.Implements(errorType) {
		target := reflect.New(mt)
		if !errors.As(err, target.Interface()) {
			return fmt.Sprintf("status %d: errors.As does not reach the %s", c.Response.Status, mt)
		}
	}
	return ""
}

// oneLine shows a result in a problem report, on one line.
func oneLine(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return fmt.Sprintf("the string %q", v.String())
	}
	return "a " + v.Type().String()
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	return false
}
