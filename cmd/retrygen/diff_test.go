package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// diffCases holds one folder per kind of change, each with old.yaml and new.yaml.
const diffCases = "../../testdata/diff"

func diffArgs(c string, flags ...string) []string {
	args := append([]string{"diff"}, flags...)
	return append(args, filepath.Join(diffCases, c, "old.yaml"), filepath.Join(diffCases, c, "new.yaml"))
}

func TestDiffExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		code  int
		why   string // what stderr says when the run fails
	}{
		// policy: two loosened rules, nothing breaking.
		{"policy", nil, 1, "2 loosened retry rules (-allow=loosened accepts them)"},
		{"policy", []string{"-allow=loosened"}, 0, ""},
		{"policy", []string{"-allow=breaking"}, 1, "2 loosened retry rules"},
		{"policy", []string{"-allow", "breaking,loosened"}, 0, ""},
		// methods and types: breaking changes, nothing loosened.
		{"methods", nil, 1, "8 breaking changes (-allow=breaking accepts them)"},
		{"methods", []string{"-allow=breaking"}, 0, ""},
		{"methods", []string{"-allow=loosened"}, 1, "8 breaking changes"},
		{"types", []string{"-json"}, 1, "9 breaking changes"},
		{"types", []string{"-markdown", "-allow=loosened, breaking"}, 0, ""},
		// both: a removed field and an operation that becomes retried.
		{"both", nil, 1, "1 breaking change and 1 loosened retry rule (-allow=breaking,loosened accepts them)"},
		{"both", []string{"-allow=breaking"}, 1, "1 loosened retry rule (-allow=loosened accepts them)"},
		{"both", []string{"-allow=loosened"}, 1, "1 breaking change (-allow=breaking accepts them)"},
		{"both", []string{"-allow=breaking,loosened"}, 0, ""},
		// paging: walks removed and a page type changed; a walk added.
		{"paging", nil, 1, "10 breaking changes (-allow=breaking accepts them)"},
		{"paging", []string{"-allow=breaking"}, 0, ""},
		// Only policy changes that loosen nothing, and compatible ones.
		{"hostile", nil, 0, ""},
		{"nochange", nil, 0, ""},
	} {
		args := diffArgs(tt.name, tt.flags...)
		code, stdout, stderr := runCmd(t, args...)
		if code != tt.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, tt.code, stderr)
		}
		if stdout == "" {
			t.Errorf("%q: no report", args)
		}
		if tt.why == "" && stderr != "" || tt.why != "" && !strings.HasPrefix(stderr, "retrygen: "+tt.why) {
			t.Errorf("%q: stderr %q, want it to say %q", args, stderr, tt.why)
		}
	}
}

func TestDiffUsageErrors(t *testing.T) {
	old, new := filepath.Join(diffCases, "policy", "old.yaml"), filepath.Join(diffCases, "policy", "new.yaml")
	for _, args := range [][]string{
		{"diff"},
		{"diff", old},
		{"diff", old, new, new},
		{"diff", "-json", "-markdown", old, new},
		{"diff", "-allow=everything", old, new},
		{"diff", "-allow=breaking,tightened", old, new},
		{"diff", "-nosuchflag", old, new},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if stdout != "" || !strings.HasPrefix(stderr, "retrygen: ") {
			t.Errorf("%q: stdout %q, stderr %q: want the complaint on stderr only, prefixed", args, stdout, stderr)
		}
	}
	code, _, stderr := runCmd(t, "diff", "-h")
	if code != 0 || !strings.Contains(stderr, "usage: retrygen diff") || !strings.Contains(stderr, "-allow") {
		t.Errorf("diff -h: exit %d, stderr %q", code, stderr)
	}
	if _, _, stderr := runCmd(t, "-h"); !strings.Contains(stderr, "retrygen diff [-json | -markdown]") {
		t.Errorf("the usage does not show diff: %q", stderr)
	}
}

// TestDiffSpecErrors checks that the errors of both specs are reported, located, and
// nothing else is printed.
func TestDiffSpecErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	spec := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\nx-retry: {maxAttempts: 0}\npaths: {}\n"
	if err := os.WriteFile(bad, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(diffCases, "policy", "new.yaml")
	for _, args := range [][]string{
		{"diff", bad, good},
		{"diff", good, bad},
		{"diff", bad, bad},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != 1 || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q: want 1 and no report", args, code, stdout)
		}
		want := 0
		for _, a := range args[1:] {
			if a == bad {
				want++
			}
		}
		if got := strings.Count(stderr, "bad.yaml:3:"); got != want {
			t.Errorf("%q: %d located errors in %q, want %d", args, got, stderr, want)
		}
	}
	code, _, stderr := runCmd(t, "diff", good, filepath.Join(t.TempDir(), "absent.yaml"))
	if code != 1 || !strings.Contains(stderr, "absent.yaml") {
		t.Errorf("missing file: exit %d, stderr %q", code, stderr)
	}
}

func TestDiffFormats(t *testing.T) {
	_, table, _ := runCmd(t, diffArgs("methods")...)
	if !strings.Contains(table, "Go API, breaking (8):") {
		t.Errorf("table:\n%s", table)
	}
	_, md, _ := runCmd(t, diffArgs("methods", "-markdown")...)
	if !strings.HasPrefix(md, "### ") || !strings.Contains(md, "| where | what |") {
		t.Errorf("markdown:\n%s", md)
	}
	_, js, _ := runCmd(t, diffArgs("methods", "-json")...)
	var out struct {
		Old     struct{ Path string }
		Counts  map[string]int
		Changes []struct{ Level string }
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil {
		t.Fatalf("-json: %v\n%s", err, js)
	}
	if out.Counts["breaking"] != 8 || len(out.Changes) != 17 || !strings.HasSuffix(out.Old.Path, "old.yaml") {
		t.Errorf("-json: %+v", out)
	}
}

// TestDiffExitStatus runs the test binary as the retrygen command, to see real exit codes.
func TestDiffExitStatus(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{diffArgs("methods"), 1},
		{diffArgs("methods", "-allow=breaking"), 0},
		{[]string{"diff", "only-one.yaml"}, 2},
	} {
		cmd := exec.Command(os.Args[0], tt.args...)
		cmd.Env = append(os.Environ(), "RETRYGEN_TEST_MAIN=1")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		err := cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code {
			t.Errorf("retrygen %q: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}

// TestDiffOpenAI runs the command on two versions of OpenAI's spec: breaking changes
// (fields removed and retyped) make it fail until they are allowed.
func TestDiffOpenAI(t *testing.T) {
	longtest.Heavy(t)
	old := corpus.Path(t, "history/openai-2026-08-10.yaml")
	new := corpus.Path(t, "openai.yaml")
	code, stdout, stderr := runCmd(t, "diff", old, new)
	if code != 1 || !strings.Contains(stderr, "20 breaking changes") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "161 operations: error response 429 added: ErrorResponse") {
		t.Errorf("the 429s added to every operation are not one line:\n%s", stdout)
	}
	if code, _, _ := runCmd(t, "diff", "-allow=breaking", "-markdown", old, new); code != 0 {
		t.Errorf("-allow=breaking: exit %d", code)
	}
}
