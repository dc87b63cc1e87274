package herd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Describe returns one line that says what c simulates.
func (c Config) Describe() string {
	return fmt.Sprintf("%d clients fail at t=0 against a server that stays down; each retries %d times "+
		"(initial delay %v, cap %v; the server sends Retry-After %v in the Retry-After rows). "+
		"Retries counted per %v window; seed %d.",
		c.Clients, c.Retries, c.Initial, c.Max, c.RetryAfter, c.Window, c.Seed)
}

// WriteTable prints the results as an aligned table under a line that describes c.
func WriteTable(w io.Writer, c Config, results []Result) error {
	width := len("strategy")
	for _, r := range results {
		width = max(width, len(r.Strategy))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", c.Describe())
	fmt.Fprintf(&b, "%-*s  %13s  %12s  %13s  %14s\n", width, "strategy", "peak / window", "windows used", "total retries", "last retry (s)")
	for _, r := range results {
		fmt.Fprintf(&b, "%-*s  %13d  %12d  %13d  %14.1f\n", width, r.Strategy, r.Peak, r.Windows, r.Total, r.LastSeconds)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown prints the results as a Markdown table, for docs/herd.md.
func WriteMarkdown(w io.Writer, results []Result) error {
	if _, err := fmt.Fprintf(w, "| strategy | peak / window | windows used | total retries | last retry (s) |\n| --- | ---: | ---: | ---: | ---: |\n"); err != nil {
		return err
	}
	for _, r := range results {
		if _, err := fmt.Fprintf(w, "| %s | %d | %d | %d | %.1f |\n", r.Strategy, r.Peak, r.Windows, r.Total, r.LastSeconds); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON prints the results as a JSON array of objects with the keys strategy, peak,
// windows, total and lastSeconds.
func WriteJSON(w io.Writer, results []Result) error {
	if results == nil {
		results = []Result{}
	}
	return writeJSON(w, results)
}

// Describe returns one line that says what c simulates.
func (c OutageConfig) Describe() string {
	who := fmt.Sprintf("%d clients, each with its own budget, make %v calls/s each", c.Clients, c.Rate)
	if c.Clients == 1 {
		who = fmt.Sprintf("1 client makes %v calls/s", c.Rate)
	}
	warm := ""
	if c.Warmup > 0 {
		warm = fmt.Sprintf(" after %v of healthy traffic", c.Warmup)
	}
	return fmt.Sprintf("%s for %v%s; %s. Up to %d attempts per call (full jitter from %v, cap %v), %v per attempt; seed %d.",
		who, c.Duration, warm, failText(c.Fail), c.Attempts, c.Initial, c.Max, c.Latency, c.Seed)
}

func failText(f float64) string {
	if f == 1 {
		return "every attempt fails (a total outage)"
	}
	return fmt.Sprintf("%s of attempts fail at random", pct(f))
}

// pct formats a share as a percentage with at most one decimal.
func pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%"
}

// failedCell formats a row's failed calls, and how many times those of the row without a
// budget they are.
func failedCell(r, none OutageResult) string {
	s := fmt.Sprintf("%.1f%%", 100*r.FailedShare)
	if r.Budget != none.Budget && none.Failed > 0 {
		s += fmt.Sprintf(" (%.1f×)", float64(r.Failed)/float64(none.Failed))
	}
	return s
}

// noneOf returns the row without a budget, or a zero row.
func noneOf(results []OutageResult) OutageResult {
	for _, r := range results {
		if r.Budget == "none" {
			return r
		}
	}
	return OutageResult{}
}

// WriteOutageTable prints the results of one steady-traffic scenario as an aligned table
// under a line that describes c. "× none" compares a row's failed calls with those of the
// row without a budget.
func WriteOutageTable(w io.Writer, c OutageConfig, results []OutageResult) error {
	width := len("budget")
	for _, r := range results {
		width = max(width, len(r.Budget))
	}
	none := noneOf(results)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", c.Describe())
	fmt.Fprintf(&b, "%-*s  %8s  %12s  %15s  %15s  %13s\n", width, "budget", "calls", "calls failed", "failed (× none)", "refused retries", "attempts/call")
	for _, r := range results {
		fmt.Fprintf(&b, "%-*s  %8d  %12d  %15s  %15d  %13.2f\n", width, r.Budget, r.Calls, r.Failed, failedCell(r, none), r.Refused, r.Amplification)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tradeoffHeader returns the trade-off table's column titles after "budget".
func tradeoffHeader(rows []Tradeoff) []string {
	var h []string
	if len(rows) == 0 {
		return h
	}
	for _, r := range rows[0].Results {
		if r.Fail == 1 {
			h = append(h, "total outage: load")
			continue
		}
		h = append(h, pct(r.Fail)+" failing: calls failed", pct(r.Fail)+": load")
	}
	return h
}

// tradeoffCells returns row i's cells after its name.
func tradeoffCells(rows []Tradeoff, i int) []string {
	var cells []string
	for j, r := range rows[i].Results {
		var none OutageResult
		for _, row := range rows {
			if row.Budget == "none" {
				none = row.Results[j]
			}
		}
		if r.Fail == 1 {
			cells = append(cells, fmt.Sprintf("%.2f", r.Amplification))
			continue
		}
		cells = append(cells, failedCell(r, none), fmt.Sprintf("%.2f", r.Amplification))
	}
	return cells
}

// WriteTradeoffTable prints the trade-off rows as an aligned table under a line that
// describes c (whose Fail each column replaces).
func WriteTradeoffTable(w io.Writer, c OutageConfig, rows []Tradeoff) error {
	table := [][]string{append([]string{"budget"}, tradeoffHeader(rows)...)}
	for i, r := range rows {
		table = append(table, append([]string{r.Budget}, tradeoffCells(rows, i)...))
	}
	var b strings.Builder
	c.Fail = 1
	fmt.Fprintf(&b, "%s\n", strings.Replace(c.Describe(), "; every attempt fails (a total outage).", ".", 1))
	b.WriteString("Each column is one run with that share of attempts failing at random. Load: attempts per call;\n" +
		"(n×): the failed calls compared with those without a budget.\n\n")
	writeAligned(&b, table)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAligned writes table's rows, the first column left-aligned and the others right.
func writeAligned(b *strings.Builder, table [][]string) {
	var widths []int
	for _, line := range table {
		for j, cell := range line {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(cell))
		}
	}
	for _, line := range table {
		for j, cell := range line {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(cell))
			if j == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		b.WriteString("\n")
	}
}

// chainHeader returns the chain table's column titles after "setup".
func chainHeader(rows []ChainRow) []string {
	var h []string
	if len(rows) == 0 {
		return h
	}
	for _, r := range rows[0].Results {
		if r.Fail == 1 {
			h = append(h, "total outage: store load")
			continue
		}
		h = append(h, pct(r.Fail)+" failing: store load", pct(r.Fail)+": calls failed")
	}
	return h
}

// chainCells returns row's cells after its name.
func chainCells(row ChainRow) []string {
	var cells []string
	for _, r := range row.Results {
		cells = append(cells, fmt.Sprintf("%.2f", r.StoreLoad))
		if r.Fail != 1 {
			cells = append(cells, fmt.Sprintf("%.1f%%", 100*r.FailedShare))
		}
	}
	return cells
}

// WriteChainTable prints the chain rows as an aligned table under lines that describe c.
func WriteChainTable(w io.Writer, c ChainConfig, rows []ChainRow) error {
	table := [][]string{append([]string{"setup"}, chainHeader(rows)...)}
	for _, r := range rows {
		table = append(table, append([]string{r.Setup.Name}, chainCells(r)...))
	}
	var b strings.Builder
	warm := ""
	if c.Warmup > 0 {
		warm = fmt.Sprintf(" after %v of healthy traffic", c.Warmup)
	}
	fmt.Fprintf(&b, "A chain of %d clients (the user's, then %d services) in front of a store: %v user calls/s for %v%s.\n",
		c.Depth, c.Depth-1, c.Rate, c.Duration, warm)
	fmt.Fprintf(&b, "Every client makes up to %d attempts (full jitter from %v, cap %v); the store answers in %v; seed %d.\n",
		c.Attempts, c.Initial, c.Max, c.Latency, c.Seed)
	b.WriteString("Each outage is one run with that share of the store's attempts failing. Store load: attempts at\n" +
		"the store per user call; calls failed: the share of user calls that failed (all, in a total outage).\n\n")
	writeAligned(&b, table)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteChainMarkdown prints the chain rows as a Markdown table, for docs/herd.md.
func WriteChainMarkdown(w io.Writer, rows []ChainRow) error {
	head := chainHeader(rows)
	var b strings.Builder
	b.WriteString("| setup | " + strings.Join(head, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(head)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + r.Setup.Name + " | " + strings.Join(chainCells(r), " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteChainJSON prints the rows as a JSON array of objects with the keys setup and
// results.
func WriteChainJSON(w io.Writer, rows []ChainRow) error {
	if rows == nil {
		rows = []ChainRow{}
	}
	return writeJSON(w, rows)
}

// WriteTradeoffMarkdown prints the trade-off rows as a Markdown table, for docs/herd.md.
func WriteTradeoffMarkdown(w io.Writer, rows []Tradeoff) error {
	head := tradeoffHeader(rows)
	var b strings.Builder
	b.WriteString("| budget | " + strings.Join(head, " | ") + " |\n| --- |" + strings.Repeat(" ---: |", len(head)) + "\n")
	for i, r := range rows {
		b.WriteString("| " + r.Budget + " | " + strings.Join(tradeoffCells(rows, i), " | ") + " |\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteOutageJSON prints the results as a JSON array of objects with the keys budget, fail,
// calls, failed, refused, attempts, failedShare and amplification.
func WriteOutageJSON(w io.Writer, results []OutageResult) error {
	if results == nil {
		results = []OutageResult{}
	}
	return writeJSON(w, results)
}

// WriteTradeoffJSON prints the rows as a JSON array of objects with the keys budget and
// results, an array of the objects WriteOutageJSON prints.
func WriteTradeoffJSON(w io.Writer, rows []Tradeoff) error {
	if rows == nil {
		rows = []Tradeoff{}
	}
	return writeJSON(w, rows)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
