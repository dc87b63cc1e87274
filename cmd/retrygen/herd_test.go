package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{"herd", "-clients", "1000000", "-retries", "100"}, // minutes of work: refused
		{"herd", "-fail", "1.5"},
		{"herd", "-fail", "lots"},
		{"herd", "-fail", "0.3", "-budgets"},
		{"herd", "-fail", "0.3", "-window", "1s"},
		{"herd", "-budgets", "-svg", "x.svg"},
		{"herd", "-rate", "5"},
		{"herd", "-fail", "0.3", "-rate", "0"},
		{"herd", "-fail", "0.3", "-clients", "100000", "-rate", "10"}, // too many calls
		{"herd", "-budgets", "-retries", "20"},
		{"herd", "-chain", "0"},
		{"herd", "-chain", "6"},
		{"herd", "-chain", "3", "-budgets"},
		{"herd", "-chain", "3", "-clients", "2"},
		{"herd", "-chain", "3", "-window", "1s"},
		{"herd", "-chain", "5", "-rate", "100"}, // too many attempts at the store
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

func TestHerdPartialOutage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"herd", "-fail", "30%", "-duration", "20s"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"1 client makes 10 calls/s for 20s after 10s of healthy traffic; 30% of attempts fail",
		"Up to 4 attempts per call (full jitter from 500ms, cap 10s)", "calls failed", "retrygen default", "AWS retry quota"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	args := []string{"herd", "-fail", "1", "-json", "-clients", "3", "-rate", "2", "-duration", "10s", "-warmup", "0s",
		"-retries", "2", "-initial", "100ms", "-max", "1s", "-latency", "10ms", "-seed", "9"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rows []struct {
		Budget   string  `json:"budget"`
		Fail     float64 `json:"fail"`
		Calls    int     `json:"calls"`
		Failed   int     `json:"failed"`
		Attempts int     `json:"attempts"`
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 9 {
		t.Fatalf("JSON %v:\n%s", err, out.String())
	}
	// 3 clients × 2 calls/s × 10 s, all failing; without a budget 3 attempts each.
	if r := rows[0]; r.Budget != "none" || r.Fail != 1 || r.Calls != 60 || r.Failed != 60 || r.Attempts != 180 {
		t.Errorf("no budget: %+v", r)
	}

	out.Reset()
	if code := run([]string{"herd", "-budgets", "-duration", "10s"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"total outage: load", "50% failing: calls failed", "20%: load", "gRPC throttling"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("trade-off table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"herd", "-budgets", "-duration", "10s", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var tradeoff []struct {
		Budget  string `json:"budget"`
		Results []struct {
			Fail float64 `json:"fail"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &tradeoff); err != nil || len(tradeoff) != 9 || len(tradeoff[1].Results) != 4 || tradeoff[1].Results[2].Fail != 0.3 {
		t.Fatalf("trade-off JSON %v:\n%s", err, out.String())
	}
}

func TestParseShare(t *testing.T) {
	for in, want := range map[string]float64{"0.3": 0.3, "30%": 0.3, "1": 1, "0": 0, " 100% ": 1} {
		if got, err := parseShare(in); err != nil || got != want {
			t.Errorf("parseShare(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-0.1", "101%", "NaN", "2"} {
		if _, err := parseShare(in); err == nil {
			t.Errorf("parseShare(%q) accepted", in)
		}
	}
}

// Progress: on a terminal at once, elsewhere only once a run is long; never when quick.
func TestHerdProgress(t *testing.T) {
	var now time.Time
	clock := func() time.Time { return now }
	var buf bytes.Buffer
	p := &progress{w: &buf, now: clock, start: now}
	p.update(1, 10)
	now = now.Add(time.Second)
	p.update(5, 10)
	p.finish()
	if buf.Len() != 0 {
		t.Fatalf("a quick run printed progress: %q", buf.String())
	}
	now = now.Add(2 * time.Second)
	p.update(6, 10)
	now = now.Add(100 * time.Millisecond)
	p.update(7, 10) // within a second of the last line: quiet
	now = now.Add(time.Second)
	p.update(10, 10)
	if got := buf.String(); got != "herd: simulating,  60% done after 3s\nherd: simulating, 100% done after 4.1s\n" {
		t.Fatalf("progress off a terminal:\n%q", got)
	}
	buf.Reset()
	tty := &progress{w: &buf, now: clock, start: now, terminal: true}
	tty.update(1, 4)
	tty.finish()
	if got := buf.String(); got != "\rherd: simulating,  25% done after 0s\r\033[K" {
		t.Fatalf("progress on a terminal: %q", got)
	}
	// A command run with a buffer for stderr is not a terminal.
	if newProgress(&buf).terminal {
		t.Fatal("a buffer is taken for a terminal")
	}
}

func TestHerdChain(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"herd", "-chain", "3", "-duration", "20s"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"A chain of 3 clients (the user's, then 2 services)", "total outage: store load",
		"50%: calls failed", "every layer retries, no budget", "one retry layer, default budgets", "ignores the signal"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"herd", "-chain", "2", "-fail", "1", "-duration", "10s", "-warmup", "0s", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rows []struct {
		Setup   struct{ Name string }
		Results []struct {
			Calls, StoreCalls int
			StoreLoad         float64
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 6 || len(rows[0].Results) != 1 {
		t.Fatalf("JSON %v:\n%s", err, out.String())
	}
	// Two layers of 4 attempts, no budget, a total outage: 16 attempts at the store per call.
	if r := rows[0].Results[0]; r.Calls != 100 || r.StoreCalls != 1600 {
		t.Errorf("%s: %+v, want 100 calls and 1600 store attempts", rows[0].Setup.Name, r)
	}
}
