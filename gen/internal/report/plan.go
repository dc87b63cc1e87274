// Package report renders what the generator knows of a spec for people and scripts:
// `retrygen plan`, each operation's retry policy and where each value came from. It reads
// only the model.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"text/template"
	"time"
	"unicode"

	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/templates"
)

// WriteJSON writes the plan of api as an indented JSON array, one object per operation.
// Its keys are a contract with scripts, listed in the README: operationId, method, path,
// retry, reason, one key per x-retry field (policy.Fields, durations as Go duration
// strings), idempotencyKey ("" when none) and sources (field → "default", "document",
// "path" or "operation").
func WriteJSON(w io.Writer, api *model.API) error {
	entries := make([]json.RawMessage, 0, len(api.Operations))
	for _, op := range api.Operations {
		p := op.Policy
		e := object{
			{"operationId", op.OperationID},
			{"method", op.Method},
			{"path", op.Path},
			{"retry", p.Retry},
			{"reason", p.Reason},
		}
		for _, f := range policy.Fields {
			v := f.Value(&p)
			switch v := v.(type) {
			case time.Duration:
				e = append(e, member{f.Name, v.String()})
			case []string:
				e = append(e, member{f.Name, append([]string{}, v...)})
			default:
				e = append(e, member{f.Name, v})
			}
		}
		sources := map[string]string{}
		for k, v := range p.Sources {
			sources[k] = string(v)
		}
		e = append(e, member{policy.KeyField, p.IdempotencyKey}, member{"sources", sources})
		data, err := e.marshal()
		if err != nil {
			return err
		}
		entries = append(entries, data)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

// object is a JSON object whose members keep their order.
type object []member

type member struct {
	key   string
	value any
}

func (o object) marshal() (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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

// WriteTable writes the plan of api, loaded from the file path, as an aligned text table
// (templates/plan.txt.tmpl).
func WriteTable(w io.Writer, path string, api *model.API) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if err := renderPlan(tw, "plan.txt.tmpl", path, api, termCell); err != nil {
		return err
	}
	return tw.Flush()
}

// WriteMarkdown writes the plan of api, loaded from the file path, as a Markdown table
// for pull requests (templates/plan.md.tmpl).
func WriteMarkdown(w io.Writer, path string, api *model.API) error {
	return renderPlan(w, "plan.md.tmpl", path, api, markdownCell)
}

func renderPlan(w io.Writer, name, path string, api *model.API, cell func(string) string) error {
	t, err := template.ParseFS(templates.FS, name)
	if err != nil {
		return fmt.Errorf("plan template: %w", err)
	}
	rep := PlanReport{Spec: cell(path), Title: cell(api.Title), Version: cell(api.Version), Count: len(api.Operations)}
	for _, op := range api.Operations {
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
		Operation:  cell(source.OpName(op.Method, op.Path, op.OperationID)),
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
