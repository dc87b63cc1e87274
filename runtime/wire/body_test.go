package wire

import (
	"io"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFormBody(t *testing.T) {
	type form struct {
		Name  string            `json:"name"`
		Tags  []string          `json:"tags"`
		Meta  map[string]string `json:"meta"`
		Inner map[string]string `json:"inner"`
		Unset *string           `json:"unset,omitempty"`
	}
	r := NewRequest("POST")
	r.FormBody("application/x-www-form-urlencoded", form{
		Name: "a b", Tags: []string{"x", "y"}, Meta: map[string]string{"k": "v"}, Inner: map[string]string{"i": "j"},
	}, "meta")
	data, _ := io.ReadAll(r.body)
	if want := "i=j&meta%5Bk%5D=v&name=a+b&tags=x&tags=y"; string(data) != want || r.contentType != "application/x-www-form-urlencoded" {
		t.Errorf("form body %s (%s), want %s", data, r.contentType, want)
	}
}

func TestMultipartBody(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "photo.png"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("PNG")
	_, _ = f.Seek(0, io.SeekStart)
	defer f.Close()
	var nilFile *os.File
	m := NewMultipart()
	m.Field("name", "rex")
	m.Field("tags", []string{"a", "b"})
	m.Field("meta", map[string]int{"k": 1})
	m.Field(`we"ird`, map[string]int{"k": 2})
	m.Field("unset", (*string)(nil))
	m.FieldAs("note", "text/plain; charset=utf-8", "hi")
	m.FieldAs("doc", "application/json", map[string]int{"k": 3})
	m.FieldAs("unsetAs", "text/plain", (*string)(nil))
	m.File("photo", "image/png", &File{Body: f})
	m.File("raw", "", &File{Body: strings.NewReader("bytes")})
	m.File("named", "image/png", &File{Name: "cat.jpg", ContentType: "image/jpeg", Body: strings.NewReader("JPG")})
	m.File("none", "", nil)
	m.File("nilBody", "", &File{})
	m.File("nilFile", "", &File{Body: nilFile})
	m.Files("many", "text/plain", []File{{Body: strings.NewReader("1")}, {Name: "two.txt", Body: strings.NewReader("2")}})
	r := NewRequest("POST")
	r.MultipartBody(m)
	if r.err != nil {
		t.Fatal(r.err)
	}
	mt, params, err := mime.ParseMediaType(r.contentType)
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q: %v", r.contentType, err)
	}
	body, err := r.bodyReader()
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(body, params["boundary"])
	var got []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(data))
	}
	want := []string{
		"name|||rex", "tags|||a", "tags|||b",
		`meta||application/json|{"k":1}`, `we"ird||application/json|{"k":2}`,
		"note||text/plain; charset=utf-8|hi", `doc||application/json|{"k":3}`,
		"photo|photo.png|image/png|PNG", "raw|raw|application/octet-stream|bytes",
		"named|cat.jpg|image/jpeg|JPG",
		"many|many|text/plain|1", "many|two.txt|text/plain|2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// A file whose reader fails fails the call before anything is sent, naming the part.
func TestMultipartBodyError(t *testing.T) {
	m := NewMultipart()
	m.File("photo", "", &File{Body: failingReader{}})
	r := NewRequest("POST")
	r.MultipartBody(m)
	rt := &recorder{}
	_, err := newTestClient(t, rt).Call(t.Context(), r, &retrying, "", nil)
	if err == nil || !strings.Contains(err.Error(), `request body: part "photo": unexpected EOF`) || len(rt.reqs) != 0 {
		t.Errorf("err %v after %d requests", err, len(rt.reqs))
	}
}

// A required file part without a body fails the call before anything is sent, instead
// of being left out.
func TestRequiredFilePart(t *testing.T) {
	r := NewRequest("POST")
	m := NewMultipart()
	m.Field("name", "x")
	m.RequiredFile("file", "image/png", &File{})
	r.MultipartBody(m)
	if r.err == nil || !strings.Contains(r.err.Error(), `multipart part "file" is required`) {
		t.Errorf("err %v", r.err)
	}
	r = NewRequest("POST")
	m = NewMultipart()
	m.RequiredFile("file", "image/png", &File{Body: strings.NewReader("png")})
	r.MultipartBody(m)
	if r.err != nil {
		t.Errorf("a required file with a body: %v", r.err)
	}
}

// A file part's Content-Type and file name go into the part's header: a content type
// that is not one valid media type, or either with a control character (CR and LF
// included), fails the body before anything is sent instead of writing header lines of
// the caller's making. So does such a content type from the spec's encoding.
func TestMultipartRefusesHeaderInjection(t *testing.T) {
	parts := map[string]func(m *Multipart){
		"CRLF in the content type": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "text/plain\r\nX-Injected: 1", Body: strings.NewReader("x")})
		},
		"CRLF after a parameter": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "text/plain; charset=utf-8\r\nX-Injected: 1", Body: strings.NewReader("x")})
		},
		"CRLF before a parameter": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "text/plain;\r\n a=b", Body: strings.NewReader("x")})
		},
		"NUL in a parameter": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "text/plain; a=\"x\x00y\"", Body: strings.NewReader("x")})
		},
		"not a media type": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "text plain", Body: strings.NewReader("x")})
		},
		"two media types": func(m *Multipart) {
			m.File("f", "", &File{ContentType: "image/png, image/jpeg", Body: strings.NewReader("x")})
		},
		"the encoding's content type": func(m *Multipart) {
			m.File("f", "text/plain\r\nX-Injected: 1", &File{Body: strings.NewReader("x")})
		},
		"a field's content type": func(m *Multipart) { m.FieldAs("f", "text/plain\r\nX-Injected: 1", "x") },
		"CRLF in the file name": func(m *Multipart) {
			m.File("f", "", &File{Name: "a.txt\r\nX-Injected: 1", Body: strings.NewReader("x")})
		},
		"NUL in the file name": func(m *Multipart) {
			m.File("f", "", &File{Name: "a.php\x00.png", Body: strings.NewReader("x")})
		},
	}
	for name, add := range parts {
		m := NewMultipart()
		add(m)
		r := NewRequest("POST")
		r.MultipartBody(m)
		if r.err == nil || !strings.Contains(r.err.Error(), `part "f"`) || r.body != nil || r.src != nil {
			t.Errorf("%s: err %v; want the part refused", name, r.err)
		}
	}
}
