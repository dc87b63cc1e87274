package herd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rows runs the default scenario with seed and indexes the results by strategy.
func rows(t *testing.T, c Config) map[string]Result {
	t.Helper()
	rs, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 8 {
		t.Fatalf("%d rows, want 8", len(rs))
	}
	m := map[string]Result{}
	for _, r := range rs {
		m[r.Strategy] = r
	}
	return m
}

func TestHerdProperties(t *testing.T) {
	for _, seed := range []uint64{1, 2, 42} {
		c := DefaultConfig()
		c.Seed = seed
		m := rows(t, c)
		all := c.Clients * c.Retries
		for name, r := range m {
			if name != "full jitter + retry budget" && r.Total != all {
				t.Errorf("seed %d, %s: %d retries, want %d", seed, name, r.Total, all)
			}
			sum := 0
			for _, n := range r.Counts {
				sum += n
			}
			if sum != r.Total || len(r.Counts) != r.Windows {
				t.Errorf("seed %d, %s: counts disagree with the row", seed, name)
			}
		}
		exp := m["exponential, no jitter"]
		if exp.Peak != c.Clients || exp.Windows != c.Retries {
			t.Errorf("seed %d: exponential peak %d over %d windows, want %d over %d", seed, exp.Peak, exp.Windows, c.Clients, c.Retries)
		}
		// Every client comes back at 1, 3, 7 and 15 s: the runtime's ceilings 1, 2, 4, 8 s.
		if got := exp.SortedWindows(); !slices.Equal(got, []int{10, 30, 70, 150}) || exp.LastSeconds != 15 {
			t.Errorf("seed %d: exponential windows %v, last %v", seed, got, exp.LastSeconds)
		}
		if fixed := m["fixed delay"]; fixed.Peak != c.Clients || !slices.Equal(fixed.SortedWindows(), []int{10, 20, 30, 40}) {
			t.Errorf("seed %d: fixed delay %+v", seed, fixed.SortedWindows())
		}
		full := m["full jitter"]
		if full.Peak > c.Clients/4 || full.Windows < 100 {
			t.Errorf("seed %d: full jitter peak %d over %d windows; want far below %d", seed, full.Peak, full.Windows, c.Clients)
		}
		if eq := m["equal jitter"]; eq.Peak <= full.Peak {
			t.Errorf("seed %d: equal jitter peak %d not above full jitter's %d", seed, eq.Peak, full.Peak)
		}
		exact, floor := m["Retry-After 30, exact"], m["Retry-After 30 + full jitter"]
		if exact.Peak != c.Clients || exact.LastSeconds != 120 {
			t.Errorf("seed %d: exact Retry-After peak %d, last %v; want every client at 30, 60, 90, 120 s", seed, exact.Peak, exact.LastSeconds)
		}
		if floor.Peak*4 > exact.Peak || floor.Windows < 10*exact.Windows {
			t.Errorf("seed %d: Retry-After floor with jitter peak %d over %d windows, exact %d over %d", seed, floor.Peak, floor.Windows, exact.Peak, exact.Windows)
		}
		// No retry comes back before the hint.
		for _, w := range floor.SortedWindows()[:1] {
			if time.Duration(w)*c.Window < 30*time.Second {
				t.Errorf("seed %d: a retry at window %d, before the 30 s hint", seed, w)
			}
		}
		budget := m["full jitter + retry budget"]
		// 10% of the 1000 calls plus the 1/s floor over the 10 s window.
		if budget.Total > c.Clients/10+10 || budget.Total*10 > full.Total {
			t.Errorf("seed %d: budget row made %d retries, want at most %d", seed, budget.Total, c.Clients/10+10)
		}
	}
}

func TestHerdDeterministic(t *testing.T) {
	c := DefaultConfig()
	a, _ := Run(c)
	b, _ := Run(c)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different results")
	}
	c.Seed = 99
	d, _ := Run(c)
	if reflect.DeepEqual(a[2].Counts, d[2].Counts) {
		t.Fatal("another seed gave the same full-jitter counts")
	}
}

func TestHerdSmallAndOddConfigs(t *testing.T) {
	c := DefaultConfig()
	c.Clients, c.Retries, c.RetryAfter = 1, 1, 1500*time.Millisecond // not whole seconds: retry-after-ms
	m := rows(t, c)
	if r := m["Retry-After 1, exact"]; r.Total != 1 || r.LastSeconds != 1.5 {
		t.Errorf("one client, 1.5 s hint: %+v", r)
	}
	for _, tc := range []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.Clients = 0 }, "clients must be between 1"},
		{func(c *Config) { c.Retries = 0 }, "retries must be between 1"},
		{func(c *Config) { c.Retries = 1000 }, "retries must be between 1"},
		{func(c *Config) { c.Initial = 0 }, "initial delay must be positive"},
		{func(c *Config) { c.Max = time.Millisecond }, "must not be less than the initial delay"},
		{func(c *Config) { c.Window = 0 }, "window must be positive"},
		{func(c *Config) { c.Window = time.Nanosecond }, "too small"},
		{func(c *Config) { c.RetryAfter = -1 }, "retry-after must not be negative"},
	} {
		c := DefaultConfig()
		tc.mut(&c)
		if _, err := Run(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v, want %q", c, err, tc.want)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	rs, _ := Run(DefaultConfig())
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rs); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rs) {
		t.Fatalf("%d objects, want %d", len(got), len(rs))
	}
	for i, o := range got {
		keys := slices.Sorted(maps.Keys(o))
		if !slices.Equal(keys, []string{"lastSeconds", "peak", "strategy", "total", "windows"}) {
			t.Fatalf("keys %v", keys)
		}
		if o["strategy"] != rs[i].Strategy || o["peak"] != float64(rs[i].Peak) || o["total"] != float64(rs[i].Total) {
			t.Errorf("object %d = %v, want %+v", i, o, rs[i])
		}
	}
	buf.Reset()
	WriteJSON(&buf, nil)
	if strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("no results: %q", buf.String())
	}
}

func TestWriteTable(t *testing.T) {
	c := DefaultConfig()
	rs, _ := Run(c)
	var buf bytes.Buffer
	if err := WriteTable(&buf, c, rs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 3+len(rs) || !strings.HasPrefix(lines[0], "1000 clients fail at t=0") {
		t.Fatalf("table:\n%s", buf.String())
	}
	for i, r := range rs {
		f := strings.Fields(strings.TrimPrefix(lines[3+i], r.Strategy))
		if !strings.HasPrefix(lines[3+i], r.Strategy) || len(f) != 4 || f[0] != strconv.Itoa(r.Peak) || f[2] != strconv.Itoa(r.Total) {
			t.Errorf("line %q for %+v", lines[3+i], r)
		}
	}
	buf.Reset()
	WriteMarkdown(&buf, rs)
	if !strings.Contains(buf.String(), "| exponential, no jitter | 1000 | 4 | 4000 | 15.0 |") {
		t.Errorf("markdown:\n%s", buf.String())
	}
}

// svgNode is a generic XML element.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []svgNode  `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// text returns all character data under n.
func (n *svgNode) text() string {
	s := n.Text
	for i := range n.Nodes {
		s += n.Nodes[i].text()
	}
	return s
}

func (n *svgNode) walk(f func(*svgNode)) {
	f(n)
	for i := range n.Nodes {
		n.Nodes[i].walk(f)
	}
}

func parseSVG(t *testing.T, data []byte) svgNode {
	t.Helper()
	var root svgNode
	d := xml.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&root); err != nil {
		t.Fatalf("SVG does not parse: %v", err)
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || strings.TrimSpace(string(cd)) != "" {
			t.Fatalf("content after the root element: %v %v", tok, err)
		}
	}
	return root
}

func TestSVG(t *testing.T) {
	c := DefaultConfig()
	rs, _ := Run(c)
	root := parseSVG(t, SVG(c, rs))
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root %v", root.XMLName)
	}
	w, _ := strconv.Atoi(root.attr("width"))
	h, _ := strconv.Atoi(root.attr("height"))
	if w <= 0 || h <= 0 || root.attr("viewBox") != "0 0 "+root.attr("width")+" "+root.attr("height") {
		t.Fatalf("size %q x %q, viewBox %q", root.attr("width"), root.attr("height"), root.attr("viewBox"))
	}
	all := root.text()
	for _, want := range []string{"Retries per 100ms window when 1000 clients fail", "seconds since every client failed", "0 s"} {
		if !strings.Contains(all, want) {
			t.Errorf("the chart does not say %q", want)
		}
	}
	var panels []*svgNode
	root.walk(func(n *svgNode) {
		if n.XMLName.Local == "g" && n.attr("class") == "panel" {
			panels = append(panels, n)
		}
	})
	if len(panels) != len(rs) {
		t.Fatalf("%d panels, want %d", len(panels), len(rs))
	}
	for i, p := range panels {
		r := rs[i]
		if p.attr("data-strategy") != r.Strategy || !strings.Contains(p.text(), r.Strategy) ||
			!strings.Contains(p.text(), "peak "+strconv.Itoa(r.Peak)+" in one window") {
			t.Errorf("panel %d is not labelled for %q: %q", i, r.Strategy, p.text())
		}
		var bars, sum int
		var tallest float64
		p.walk(func(n *svgNode) {
			if n.attr("class") != "bar" {
				return
			}
			bars++
			count, _ := strconv.Atoi(n.attr("data-count"))
			win, _ := strconv.Atoi(n.attr("data-window"))
			sum += count
			if r.Counts[win] != count {
				t.Errorf("%s: bar for window %d says %d, the simulation %d", r.Strategy, win, count, r.Counts[win])
			}
			bh, _ := strconv.ParseFloat(n.attr("height"), 64)
			want := max(float64(count)/float64(c.Clients)*panelH, 1)
			if d := bh - want; d > 0.01 || d < -0.01 {
				t.Errorf("%s: bar of %d is %.2f high, want %.2f", r.Strategy, count, bh, want)
			}
			tallest = max(tallest, bh)
		})
		if bars != r.Windows || sum != r.Total {
			t.Errorf("%s: %d bars summing to %d, want %d and %d", r.Strategy, bars, sum, r.Windows, r.Total)
		}
		if r.Peak == c.Clients && tallest != panelH {
			t.Errorf("%s: a wall of every client is %.1f high, want the full %d", r.Strategy, tallest, panelH)
		}
	}
	// Text is escaped, whatever it says.
	odd := []Result{{Strategy: `a<b & "c"`, Peak: 1, Windows: 1, Total: 1, Counts: map[int]int{3: 1}}}
	root = parseSVG(t, SVG(c, odd))
	if !strings.Contains(root.text(), `a<b & "c"`) {
		t.Error("an odd strategy name did not survive escaping")
	}
}

// The chart in docs/ is the default scenario's; regenerate it with
// "go run ./cmd/retrygen herd -svg docs/herd.svg" when the simulation changes.
func TestCommittedChartIsCurrent(t *testing.T) {
	c := DefaultConfig()
	rs, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "herd.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(SVG(c, rs), want) {
		t.Fatal("docs/herd.svg is stale: run go run ./cmd/retrygen herd -svg docs/herd.svg")
	}
	var table, budgets, many bytes.Buffer
	WriteMarkdown(&table, rs)
	rows, err := RunTradeoff(DefaultOutage(), TradeoffShares, nil)
	if err != nil {
		t.Fatal(err)
	}
	WriteTradeoffMarkdown(&budgets, rows)
	// docs/herd.md also shows many quiet clients: -budgets -clients 100 -rate 1.
	mc := DefaultOutage()
	mc.Clients, mc.Rate = 100, 1
	if rows, err = RunTradeoff(mc, TradeoffShares, nil); err != nil {
		t.Fatal(err)
	}
	WriteTradeoffMarkdown(&many, rows)
	// And a chain of three: -chain 3.
	var chain bytes.Buffer
	crows, err := RunChain(ChainConfig{OutageConfig: DefaultOutage(), Depth: 3}, ChainShares)
	if err != nil {
		t.Fatal(err)
	}
	WriteChainMarkdown(&chain, crows)
	for _, doc := range []struct {
		name   string
		tables []*bytes.Buffer
	}{
		{"docs/herd.md", []*bytes.Buffer{&table, &budgets, &many, &chain}},
	} {
		text, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(doc.name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range doc.tables {
			if !bytes.Contains(text, want.Bytes()) {
				t.Errorf("%s does not hold the current table:\n%s", doc.name, want.String())
			}
		}
	}
}
