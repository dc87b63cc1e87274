package gen

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/retrygen/retrygen/internal/longtest"
)

// programPayloads would each, if any of it became code, write the marker file (MARKER
// stands for its quoted path), print or exit with status 3.
var programPayloads = []string{
	"*/ func init() { os.WriteFile(MARKER, nil, 0o644) } /*",
	"\n*/\nfunc init() { os.WriteFile(MARKER, nil, 0o644) }\n/*",
	"\"+func() string { os.WriteFile(MARKER, nil, 0o644); return \"\" }()+\"",
	"`+func() string { os.WriteFile(MARKER, nil, 0o644); return \"\" }()+`",
	"'+func() string { os.WriteFile(MARKER, nil, 0o644); return \"\" }()+'",
	"}\n}\nfunc init() { os.WriteFile(MARKER, nil, 0o644); os.Exit(3) }\nfunc _() {\n{",
	"\"); os.WriteFile(MARKER, nil, 0o644); os.Exit(3); (\"",
	"\\\"; func init() { os.WriteFile(MARKER, nil, 0o644) }; \"",
	"\u2028func init() { os.WriteFile(MARKER, nil, 0o644) }\u2029",
	"\r\nfunc init() { os.WriteFile(MARKER, nil, 0o644) }\r\n//",
	"\x00*/ func init() { os.WriteFile(MARKER, nil, 0o644) } /*",
	"\u202e } func init() { fmt.Println(\"pwned\"); os.WriteFile(MARKER, nil, 0o644) } \u2066",
	"\";\n\tos.Exit(3)\n\t_ = \"",
	// Path keys (D6): sent percent-encoded, never evaluated.
	"\"+os.Exit(3)+\"",
	"'+os.Exit(3)+'",
	"`+os.Exit(3)+`",
	"/../admin#f",
	"%2e%2e/%2fadmin",
}

// programMain is the program that imports every generated package. For each client it
// serves an Item holding the enum value and discriminator value the spec declared,
// calls GetItemX with a path parameter that tries to leave its segment, and prints the
// request URI the server received and whether the values came back. Then it takes the
// recursive and wire-name types through JSON and back.
const programMain = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
{{range .Clients}}
	{{.Name}} "retrygen.test/clients/{{.Name}}"{{end}}
	"retrygen.test/clients/rec"
	"retrygen.test/clients/wire"
)

func check(err error) {
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
}

// roundTrip decodes in into v, encodes v, and reports whether the JSON is the same.
func roundTrip(name, in string, v any) {
	check(json.Unmarshal([]byte(in), v))
	out, err := json.Marshal(v)
	check(err)
	var a, b any
	check(json.Unmarshal([]byte(in), &a))
	check(json.Unmarshal(out, &b))
	if !reflect.DeepEqual(a, b) {
		fmt.Printf("%s: round trip changed %s into %s\n", name, in, out)
		return
	}
	fmt.Println(name, "round trip ok")
}

func main() {
	var uri string
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uri = r.RequestURI
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	ctx := context.Background()
	var err error
{{range .Clients}}
	{
		body, err = json.Marshal(map[string]any{"pX": "v", "e": {{.Enum}}, "pet": map[string]any{"kindX": {{.Cat}}}})
		check(err)
		c := {{.Name}}.NewClient({{.Name}}.WithBaseURL(srv.URL))
		item, err := c.GetItemX(ctx, "a/b?c#d", nil)
		check(err)
		fmt.Println({{printf "%q" .Name}}, uri, item.E != nil && string(*item.E) == {{.Enum}}, item.Pet != nil && item.Pet.Cat != nil)
	}
{{end}}
	var node rec.Node
	roundTrip("Node", ` + "`" + `{"name":"root","children":[{"name":"a","children":[{"name":"b"}]}],"parent":{"name":"p"},"index":{"k":{"name":"i"}}}` + "`" + `, &node)
	var a rec.A
	roundTrip("A", ` + "`" + `{"b":{"a":{"b":{"a":null,"name":"deep"}},"name":"x"}}` + "`" + `, &a)
	var tree rec.Tree
	roundTrip("Tree", ` + "`" + `{"name":"t","extra":{"name":"u","extra":{"name":"v"}}}` + "`" + `, &tree)
	var expr rec.Expr
	roundTrip("Expr", ` + "`" + `{"op":"bin","left":{"op":"lit","value":1},"right":{"op":"bin","left":{"op":"lit","value":2},"right":{"op":"lit","value":3}}}` + "`" + `, &expr)
	var w wire.Wire
	roundTrip("Wire", {{.Wire}}, &w)
	fmt.Println("done")
}
`

// programClient is one generated package the program calls.
type programClient struct {
	Name string
	Enum string // Go literal of the enum value the spec declares
	Cat  string // Go literal of the discriminator value that selects Cat
	uri  string // the request URI the server must receive
}

// wireJSON is an instance of wire.yaml's Wire with every property set.
const wireJSON = `{"-":"minus","-,":"minus comma",",":"comma","a,omitempty":"o","a,string":7,"a\" json:\"b":"q",` +
	"\"`\":\"tick\"," + `"":"empty"," ":"space","a b":"ab","\u202e":"bidi","é":"e","omitempty":"oe","string":"s",` +
	`"a:b":"colon","\\":"backslash","'":"apos","\u0000":"nul","__proto__":"proto","Wire":"w","MarshalJSON":"m"}`

// TestHostileProgram builds and runs a program importing clients generated from specs
// that carry, in every field that takes it, a payload that would write a marker file,
// print or exit if it ran; and clients of recursive schemas and of property names that
// a json tag would misread. The program must exit 0 with exactly the expected output,
// and the marker file must not exist. The requests show how path keys and parameters
// are sent.
func TestHostileProgram(t *testing.T) {
	longtest.Heavy(t)
	work := t.TempDir()
	marker := filepath.Join(work, "pwned")
	mod := tempModule(t)
	r := &hostileRun{t: t, dir: t.TempDir(), twins: map[string]*hostileTwin{}}

	var runnable []hostileField
	for _, f := range hostileFields {
		if !f.ident {
			runnable = append(runnable, f)
		}
	}
	var clients []programClient
	for i, format := range programPayloads {
		p := strings.ReplaceAll(format, "MARKER", strconv.Quote(marker))
		values := map[string]string{}
		r.bisect(runnable, p, func(f hostileField, o hostileOutcome) {
			if o.err != nil {
				t.Errorf("%s, payload %d: %v", f.name, i, o.err)
			}
			if o.accepted {
				values[f.name] = p
			}
		})
		name := "p" + strconv.Itoa(i)
		src, err := generateFile(r.dir, "spec.json", hostileSpecText(values), name)
		if err != nil {
			t.Fatalf("payload %d in %d fields: %v", i, len(values), err)
		}
		writePackage(t, mod, name, map[string][]byte{"client_gen.go": src})
		value := func(field string) string {
			if v, ok := values[field]; ok {
				return v
			}
			return hostileFieldByName(field).base
		}
		c := programClient{
			Name: name,
			Enum: strconv.Quote(value("enum.value")),
			Cat:  strconv.Quote("cat" + value("discriminator.value")),
			uri:  "/items/a%2Fb%3Fc%23d" + (&url.URL{Path: "/x" + pathOfKey(value("path.key"))}).EscapedPath(),
		}
		clients = append(clients, c)
		t.Logf("payload %d: in %d of %d fields", i, len(values), len(runnable))
	}
	for _, name := range []string{"recursive", "wire"} {
		spec, err := Load(filepath.Join("..", "testdata", "hostile", name+".yaml"), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pkg := map[string]string{"recursive": "rec", "wire": "wire"}[name]
		src, err := Generate(spec, GenerateOptions{Package: pkg, Command: name + ".yaml"})
		if err != nil {
			t.Fatal(err)
		}
		writePackage(t, mod, pkg, map[string][]byte{"client_gen.go": src})
	}

	var main bytes.Buffer
	tmpl := template.Must(template.New("main").Parse(programMain))
	if err := tmpl.Execute(&main, map[string]any{"Clients": clients, "Wire": strconv.Quote(wireJSON)}); err != nil {
		t.Fatal(err)
	}
	writePackage(t, mod, "cmd/run", map[string][]byte{"main.go": main.Bytes()})
	goCmd(t, mod, "vet", "./...")
	goCmd(t, mod, "build", "-o", filepath.Join(work, "run"), "./cmd/run")

	cmd := exec.Command(filepath.Join(work, "run"))
	cmd.Dir = work
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("program: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var want strings.Builder
	for _, c := range clients {
		fmt.Fprintf(&want, "%s %s true true\n", c.Name, c.uri)
	}
	for _, name := range []string{"Node", "A", "Tree", "Expr", "Wire"} {
		fmt.Fprintf(&want, "%s round trip ok\n", name)
	}
	want.WriteString("done\n")
	if got := stdout.String(); got != want.String() {
		t.Errorf("program output:\n%s\nwant:\n%s", got, want.String())
	}
	t.Logf("program output:\n%s", stdout.String())
	if stderr.Len() > 0 {
		t.Errorf("program wrote to stderr:\n%s", stderr.String())
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the marker file exists (or cannot be checked: %v): a payload ran", err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 1 {
		t.Errorf("the program's folder holds %d entries, want only the program", len(entries))
	}
}

// pathOfKey returns the path a path key sends: what comes before a fragment, which only
// names the operation.
func pathOfKey(key string) string {
	path, _, _ := strings.Cut(key, "#")
	return path
}
