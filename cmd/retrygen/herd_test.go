package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHerdCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"herd", "-clients", "200", "-seed", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"200 clients fail at t=0", "strategy", "exponential, no jitter", "full jitter + retry budget"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	svg := filepath.Join(t.TempDir(), "herd.svg")
	if code := run([]string{"herd", "-clients", "200", "-json", "-svg", svg}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rows []struct {
		Strategy    string  `json:"strategy"`
		Peak        int     `json:"peak"`
		Windows     int     `json:"windows"`
		Total       int     `json:"total"`
		LastSeconds float64 `json:"lastSeconds"`
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 8 || rows[1].Peak != 200 {
		t.Fatalf("JSON %v %+v:\n%s", err, rows, out.String())
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(data, &root); err != nil || root.XMLName.Local != "svg" {
		t.Fatalf("SVG: %v %v", err, root.XMLName)
	}

	for _, args := range [][]string{
		{"herd", "-clients", "0"},
		{"herd", "-window", "1ns"},
		{"herd", "-max", "1ms"},
		{"herd", "-nope"},
		{"herd", "extra"},
		{"herd", "-initial", "soon"},
	} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 with a message", args, code, errb.String())
		}
	}
	errb.Reset()
	if code := run([]string{"herd", "-svg", filepath.Join(t.TempDir(), "missing", "x.svg")}, &out, &errb); code != 1 {
		t.Errorf("unwritable -svg: exit %d, want 1", code)
	}
}
