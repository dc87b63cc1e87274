package gen

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"text/template"
	"time"
	"unicode"

	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/templates"
)

// PlanEntry is one operation of `retrygen plan -json`. Its JSON keys are a contract with
// scripts: do not rename them.
type PlanEntry struct {
	OperationID      string            `json:"operationId"`
	Method           string            `json:"method"`
	Path             string            `json:"path"`
	Retry            bool              `json:"retry"`
	Reason           string            `json:"reason"`
	MaxAttempts      int               `json:"maxAttempts"`
	InitialDelay     string            `json:"initialDelay"` // Go duration, e.g. "500ms"
	MaxDelay         string            `json:"maxDelay"`
	Multiplier       float64           `json:"multiplier"`
	Jitter           string            `json:"jitter"`
	StatusCodes      []string          `json:"statusCodes"` // e.g. ["429", "5XX"]
	ConnectionErrors bool              `json:"connectionErrors"`
	AttemptTimeout   string            `json:"attemptTimeout"`
	MaxElapsed       string            `json:"maxElapsed"`
	RetryAfter       bool              `json:"retryAfter"`
	MaxRetryAfter    string            `json:"maxRetryAfter"`
	IdempotencyKey   string            `json:"idempotencyKey"` // "" when none
	Sources          map[string]string `json:"sources"`        // field → "default", "document", "path" or "operation"
}

// Plan turns operations into plan entries, in the same order.
func Plan(ops []*model.Operation) []PlanEntry {
	entries := make([]PlanEntry, 0, len(ops))
	for _, op := range ops {
		p := op.Policy
		e := PlanEntry{
			OperationID:      op.OperationID,
			Method:           op.Method,
			Path:             op.Path,
			Retry:            p.Retry,
			Reason:           p.Reason,
			MaxAttempts:      p.MaxAttempts,
			InitialDelay:     p.InitialDelay.String(),
			MaxDelay:         p.MaxDelay.String(),
			Multiplier:       p.Multiplier,
			Jitter:           p.Jitter,
			StatusCodes:      append([]string{}, p.StatusCodes...),
			ConnectionErrors: p.ConnectionErrors,
			AttemptTimeout:   p.AttemptTimeout.String(),
			MaxElapsed:       p.MaxElapsed.String(),
			RetryAfter:       p.RetryAfter,
			MaxRetryAfter:    p.MaxRetryAfter.String(),
			IdempotencyKey:   p.IdempotencyKey,
			Sources:          map[string]string{},
		}
		for k, v := range p.Sources {
			e.Sources[k] = string(v)
		}
		entries = append(entries, e)
	}
	return entries
}

// WritePlanJSON writes entries as an indented JSON array.
func WritePlanJSON(w io.Writer, entries []PlanEntry) error {
	if entries == nil {
		entries = []PlanEntry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

// PlanReport is what the plan templates render.
type PlanReport struct {
	Spec    string // the spec file as named
	Title   string
	Version string
	Count   int
	Retried int
	Rows    []PlanRow
}

// PlanRow is one operation, every cell already formatted and escaped for its format.
type PlanRow struct {
	Operation, Retry, Attempts, Backoff, Jitter, Statuses, Conn, Timeout, Elapsed, RetryAfter, Key, Reason string
}

// WritePlanTable writes the plan as an aligned text table (templates/plan.txt.tmpl).
func WritePlanTable(w io.Writer, s *Spec, ops []*model.Operation) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if err := renderPlan(tw, "plan.txt.tmpl", s, ops, termCell); err != nil {
		return err
	}
	return tw.Flush()
}

// WritePlanMarkdown writes the plan as a Markdown table for pull requests
// (templates/plan.md.tmpl).
func WritePlanMarkdown(w io.Writer, s *Spec, ops []*model.Operation) error {
	return renderPlan(w, "plan.md.tmpl", s, ops, markdownCell)
}

func renderPlan(w io.Writer, name string, s *Spec, ops []*model.Operation, cell func(string) string) error {
	t, err := template.ParseFS(templates.FS, name)
	if err != nil {
		return fmt.Errorf("plan template: %w", err)
	}
	rep := PlanReport{Spec: cell(s.Path), Count: len(ops)}
	if info := s.Doc.Info; info != nil {
		rep.Title, rep.Version = cell(info.Title), cell(info.Version)
	}
	for _, op := range ops {
		if op.Policy.Retry {
			rep.Retried++
		}
		rep.Rows = append(rep.Rows, planRow(op, cell))
	}
	return t.Execute(w, rep)
}

func planRow(op *model.Operation, cell func(string) string) PlanRow {
	p := op.Policy
	mark := func(field, v string) string {
		switch p.Sources[field] {
		case model.FromDocument:
			return v + " (d)"
		case model.FromPath:
			return v + " (p)"
		case model.FromOperation:
			return v + " (o)"
		}
		return v
	}
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.String()
	}
	backoff := fmt.Sprintf("%s..%s x%s",
		mark("initialDelay", p.InitialDelay.String()),
		mark("maxDelay", p.MaxDelay.String()),
		mark("multiplier", strconv.FormatFloat(p.Multiplier, 'g', -1, 64)))
	retryAfter := "ignored"
	if p.RetryAfter {
		retryAfter = "up to " + p.MaxRetryAfter.String()
	}
	if p.Sources["retryAfter"] != model.FromDefault || p.Sources["maxRetryAfter"] != model.FromDefault {
		src := p.Sources["retryAfter"]
		if src == model.FromDefault {
			src = p.Sources["maxRetryAfter"]
		}
		retryAfter += sourceMark(src)
	}
	statuses := strings.Join(p.StatusCodes, ",")
	if statuses == "" {
		statuses = "none"
	}
	key := p.IdempotencyKey
	if key == "" {
		key = "-"
	}
	return PlanRow{
		Operation:  cell(OpName(op.Method, op.Path, op.OperationID)),
		Retry:      yesNo(p.Retry),
		Attempts:   mark("maxAttempts", strconv.Itoa(p.MaxAttempts)),
		Backoff:    cell(backoff),
		Jitter:     mark("jitter", p.Jitter),
		Statuses:   cell(mark("statusCodes", statuses)),
		Conn:       mark("connectionErrors", yesNo(p.ConnectionErrors)),
		Timeout:    mark("attemptTimeout", dur(p.AttemptTimeout)),
		Elapsed:    mark("maxElapsed", dur(p.MaxElapsed)),
		RetryAfter: retryAfter,
		Key:        cell(mark("idempotencyKey", key)),
		Reason:     cell(p.Reason),
	}
}

func sourceMark(src model.Source) string {
	switch src {
	case model.FromDocument:
		return " (d)"
	case model.FromPath:
		return " (p)"
	case model.FromOperation:
		return " (o)"
	}
	return ""
}

// termCell makes spec text safe for one cell of a terminal table: control, format and
// bidi characters (which could move the cursor or reorder the line) are shown escaped,
// and tabs and newlines cannot break the layout.
func termCell(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdownCell makes spec text safe for one cell of a Markdown table: terminal-safe,
// with the characters that Markdown or HTML would interpret escaped.
func markdownCell(s string) string {
	s = termCell(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
