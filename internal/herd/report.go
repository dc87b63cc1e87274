package herd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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

// WriteMarkdown prints the results as a Markdown table, for the README.
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}
