package semantics

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles) and a server that records every byte it receives: what it
// sees must be what the spec means.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// recorded is what the server saw of the last request.
type recorded struct {
	req  *http.Request
	body []byte
}

// newServer starts a server that records each request and answers with reply.
func newServer(t *testing.T, reply func(w http.ResponseWriter, r *http.Request)) (*Client, *recorded) {
	t.Helper()
	rec := &recorded{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.body, _ = io.ReadAll(r.Body)
		rec.req = r
		r.Body = io.NopCloser(bytes.NewReader(rec.body))
		reply(w, r)
	}))
	t.Cleanup(srv.Close)
	c := NewClient(WithBaseURL(srv.URL), WithoutRetryBudget())
	return c, rec
}

func noContent(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

// object decodes a recorded JSON body as an object, members undecoded.
func object(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return m
}

// The discriminator is written on encode: the mapping's value, else the schema name.
func TestDiscriminatorWritten(t *testing.T) {
	c, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(echo(r))
	})
	got, err := c.CreatePet(context.Background(), PetDisc{Cat: &Cat{Meow: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if m := object(t, rec.body); string(m["petType"]) != `"kitty"` {
		t.Errorf("sent %s, want petType kitty", rec.body)
	}
	if got.Cat == nil || got.Cat.Meow != 1 {
		t.Errorf("the echo did not decode as a Cat: %+v", got)
	}
	if _, err := c.CreatePet(context.Background(), PetDisc{Dog: &Dog{}}); err != nil {
		t.Fatal(err)
	}
	if m := object(t, rec.body); string(m["petType"]) != `"Dog"` {
		t.Errorf("sent %s, want petType Dog (the schema name)", rec.body)
	}
}

// A union with two variants set is not sent: which one the API would receive cannot be
// told. A value read from JSON, with the variant it names, is sent again as it came.
func TestUnionTwoVariantsNotSent(t *testing.T) {
	c, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(echo(r))
	})
	_, err := c.CreatePet(context.Background(), PetDisc{Cat: &Cat{Meow: 1}, Dog: &Dog{}})
	if !errors.Is(err, ErrManyVariants) || rec.req != nil {
		t.Fatalf("err = %v, request sent: %v; want ErrManyVariants and nothing sent", err, rec.req != nil)
	}
	var read PetDisc
	if err := json.Unmarshal([]byte(`{"petType":"kitty","meow":2}`), &read); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(read)
	if err != nil {
		t.Fatal(err)
	}
	if m := object(t, out); string(m["petType"]) != `"kitty"` || string(m["meow"]) != "2" {
		t.Errorf("re-encoded %s", out)
	}
	read.Dog = &Dog{}
	if _, err := json.Marshal(read); !errors.Is(err, ErrManyVariants) {
		t.Errorf("a read Cat with a Dog set too: err = %v", err)
	}
}

func echo(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

// A read-only property is not sent; absent, null and empty are what the caller says; a
// required array or map left nil is sent as [] or {}; consts and dates are on the wire.
func TestRecordOnTheWire(t *testing.T) {
	c, rec := newServer(t, noContent)
	born := Date{Year: 2024, Month: 2, Day: 29}
	err := c.PutRecord(context.Background(), "r1", Record{ID: "server-set", Name: "n", Password: "p", Aliases: []string{}, Born: &born})
	if err != nil {
		t.Fatal(err)
	}
	m := object(t, rec.body)
	if _, ok := m["id"]; ok {
		t.Errorf("read-only id sent: %s", rec.body)
	}
	for name, want := range map[string]string{
		"name": `"n"`, "password": `"p"`, "tags": `[]`, "labels": `{}`, "aliases": `[]`,
		"born": `"2024-02-29"`, "kind": `"record"`,
	} {
		if string(m[name]) != want {
			t.Errorf("%s = %s, want %s (body %s)", name, m[name], want, rec.body)
		}
	}
	if _, ok := m["level"]; ok {
		t.Errorf("unset optional level sent: %s", rec.body)
	}
}

// A GET then PUT keeps the properties the schema does not declare.
func TestAdditionalPropertiesSurviveReadModifyWrite(t *testing.T) {
	stored := `{"id":"r1","name":"n","tags":["a"],"labels":{},"kind":"record","extra1":"v1","extra2":{"deep":[1,2]}}`
	c, rec := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, stored)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	r, err := c.GetRecord(context.Background(), "r1")
	if err != nil {
		t.Fatal(err)
	}
	if r.AdditionalProperties["extra1"] != "v1" {
		t.Errorf("additional properties %v", r.AdditionalProperties)
	}
	r.Name = "renamed"
	if err := c.PutRecord(context.Background(), "r1", *r); err != nil {
		t.Fatal(err)
	}
	m := object(t, rec.body)
	if string(m["extra1"]) != `"v1"` || string(m["extra2"]) != `{"deep":[1,2]}` || string(m["name"]) != `"renamed"` {
		t.Errorf("PUT sent %s", rec.body)
	}
}

// A merge-patch sends a value, clears a property with null, and leaves out the rest.
func TestMergePatch(t *testing.T) {
	c, rec := newServer(t, noContent)
	err := c.PatchRecord(context.Background(), "r1", RecordPatch{
		Name: Some("rex"),      // set
		Note: Null[string](),   // clear
		Tags: Some([]string{}), // set to empty
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"rex","note":null,"tags":[]}`; string(rec.body) != want {
		t.Errorf("sent %s, want %s", rec.body, want)
	}
	if ct := rec.req.Header.Get("Content-Type"); ct != "application/merge-patch+json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// File parts carry the caller's file name and the content type the spec's encoding gives.
func TestMultipartFilePart(t *testing.T) {
	c, rec := newServer(t, noContent)
	for _, tc := range []struct {
		file        File
		name, ctype string
	}{
		{File{Name: "cat.png", Body: strings.NewReader("PNG")}, "cat.png", "image/png"},
		{File{Body: strings.NewReader("PNG")}, "file", "image/png"},
		{File{Name: "c.jpg", ContentType: "image/jpeg", Body: strings.NewReader("JPG")}, "c.jpg", "image/jpeg"},
	} {
		caption := "a cat"
		if err := c.UploadPhoto(context.Background(), UploadPhotoRequest{File: tc.file, Caption: &caption}); err != nil {
			t.Fatal(err)
		}
		_, params, err := mime.ParseMediaType(rec.req.Header.Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		mr := multipart.NewReader(bytes.NewReader(rec.body), params["boundary"])
		part, err := mr.NextPart()
		if err != nil {
			t.Fatal(err)
		}
		if part.FormName() != "caption" || part.Header.Get("Content-Type") != "text/plain" {
			t.Errorf("part %q type %q, want caption, text/plain", part.FormName(), part.Header.Get("Content-Type"))
		}
		if part, err = mr.NextPart(); err != nil {
			t.Fatal(err)
		}
		if part.FormName() != "file" || part.FileName() != tc.name || part.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("part %q filename %q type %q, want file, %q, %q", part.FormName(), part.FileName(), part.Header.Get("Content-Type"), tc.name, tc.ctype)
		}
	}
}

// Required parameters are arguments, sent even when zero; cookie values are encoded so
// that Go's own server finds them.
func TestRequiredParametersAndCookies(t *testing.T) {
	c, rec := newServer(t, noContent)
	session := `a b,c"d/é`
	if err := c.Search(context.Background(), 0, "h", session, nil); err != nil {
		t.Fatal(err)
	}
	q := rec.req.URL.Query()
	if q.Get("reqInt") != "0" || len(q["reqInt"]) != 1 || q.Has("page") {
		t.Errorf("query %v", q)
	}
	if h := rec.req.Header.Get("X-Req"); h != "h" {
		t.Errorf("X-Req %q", h)
	}
	ck, err := rec.req.Cookie("session")
	if err != nil {
		t.Fatalf("the server finds no session cookie in %q: %v", rec.req.Header.Get("Cookie"), err)
	}
	if v, err := url.PathUnescape(ck.Value); err != nil || v != session {
		t.Errorf("cookie %q decodes to %q (%v), want %q", ck.Value, v, err, session)
	}
}

// A 2xx status the spec does not declare is an error that carries the response.
func TestUndeclaredStatusIsAnError(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNonAuthoritativeInfo)
		_, _ = io.WriteString(w, `{"message":"from a mirror"}`)
	})
	got, err := c.GetRecord(context.Background(), "r1")
	if err == nil || got != nil {
		t.Fatalf("got %+v, %v; want an error", got, err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 203 || !errors.Is(err, ErrUndeclaredStatus) {
		t.Fatalf("err %v", err)
	}
	if string(apiErr.Body) != `{"message":"from a mirror"}` {
		t.Errorf("body %q", apiErr.Body)
	}
	var p *Problem
	if !errors.As(err, &p) || p.Message == nil || *p.Message != "from a mirror" {
		t.Errorf("the default response's model is not reachable: %v", err)
	}
}

// A struct that marshals itself field by field keeps the same rules.
func TestCustomJSONStruct(t *testing.T) {
	var w Weird
	if err := json.Unmarshal([]byte(`{"id":"1","a,b":"x","list":[1],"n":7,"maybe":null}`), &w); err != nil {
		t.Fatal(err)
	}
	if w.ID != "1" || w.AB != "x" || w.AdditionalProperties["n"] != 7 || !w.Maybe.IsNull() {
		t.Errorf("decoded %+v", w)
	}
	w.List = nil
	w.Maybe = Nullable[int64]{}
	data, err := json.Marshal(w)
	if want := `{"a,b":"x","kind":"weird","list":[],"n":7}`; err != nil || string(data) != want {
		t.Errorf("encoded %s (%v), want %s", data, err, want)
	}
}

// Or reads a Nullable that is not addressable (a function's result) in one expression,
// and agrees with Get: the value when there is one, else the fallback; Deref does the same
// for an optional pointer.
func TestReadOptionalsInOneExpression(t *testing.T) {
	patch := func(s string) RecordPatch {
		var p RecordPatch
		_ = json.Unmarshal([]byte(s), &p) // a failed decode leaves Tags null
		return p
	}
	for _, in := range []string{`{"name":"a","tags":["x"]}`, `{"name":null,"tags":null}`, `{}`, `{"name":"","tags":["x",1]}`} {
		p := patch(in)
		name, ok := p.Name.Get()
		if !ok {
			name = "none"
		}
		if got := patch(in).Name.Or("none"); got != name {
			t.Errorf("%s: Name.Or = %q; Get %q, %v", in, got, name, ok)
		}
		tags, ok := p.Tags.Get()
		if got := patch(in).Tags.Or([]string{"fallback"}); ok && len(got) != len(tags) || !ok && (len(got) != 1 || got[0] != "fallback") {
			t.Errorf("%s: Tags.Or = %q; Get %q, %v", in, got, tags, ok)
		}
	}
	var absent *string
	if Deref(absent, "none") != "none" || Deref(Ptr("a"), "none") != "a" {
		t.Errorf("Deref = %q, %q", Deref(absent, "none"), Deref(Ptr("a"), "none"))
	}
}
