// Package report renders what the generator knows of a spec for people and scripts:
// `retrygen plan`, each operation's retry policy and where each value came from, and
// `retrygen diff`, what changes between two versions (diff.go). It reads only the model.
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
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/templates"
)

// WriteJSON writes the plan of api as an indented JSON array, one object per operation.
// Its keys are a contract with scripts, listed in docs/cli.md: operationId, goMethod (the
// generated method, e.g. "ListPets"), method, path, retry, attempts (see attempts),
// reason, one key per x-retry
// field (policy.Fields, durations as Go duration strings), idempotencyKey ("" when none),
// idempotencyKeyIn ("header", "body", or "" when none),
// sources (field → "default", "document", "path" or "operation"), overlays (field →
// "file:line:col" of the overlay value that set it, for the values an overlay put in the
// spec; "idempotent" for x-idempotent) and pagination (null, or how the operation's pages
// are walked: see pagination).
func WriteJSON(w io.Writer, api *model.API) error {
	entries := make([]json.RawMessage, 0, len(api.Operations))
	for _, op := range api.Operations {
		p := op.Policy
		e := object{
			{"operationId", op.OperationID},
			{"goMethod", op.GoName},
			{"method", op.Method},
			{"path", op.Path},
			{"retry", p.Retry},
			{"attempts", attempts(p)},
			{"reason", p.Reason},
		}
		for _, f := range policy.Fields {
			v := f.Value(&p)
			switch v := v.(type) {
			case time.Duration:
				e = append(e, member{f.Name, v.String()})
			case []runtime.StatusCode:
				e = append(e, member{f.Name, model.StatusTexts(v)})
			default:
				e = append(e, member{f.Name, v})
			}
		}
		sources := map[string]string{}
		for k, v := range p.Sources {
			sources[k] = string(v)
		}
		overlays := map[string]string{}
		for k, v := range p.Overlays {
			overlays[k] = v
		}
		e = append(e, member{policy.KeyField, p.IdempotencyKey}, member{"idempotencyKeyIn", keyIn(p)},
			member{"sources", sources}, member{"overlays", overlays}, member{"pagination", pagination(op)})
		data, err := e.marshal()
		if err != nil {
			return err
		}
		entries = append(entries, data)
	}
	for _, h := range api.Webhooks {
		data, err := webhookJSON(h).marshal()
		if err != nil {
			return err
		}
		entries = append(entries, data)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

// keyIn says where p's idempotency key goes: "header", "body", or "" when it has none.
func keyIn(p model.Policy) string {
	switch {
	case p.IdempotencyKey == "":
		return ""
	case p.KeyInBody:
		return "body"
	}
	return "header"
}

// attempts is how many attempts a call makes at most when the server answers and does
// not say to retry: maxAttempts for an operation that is retried, 1 for one that is not,
// whose maxAttempts bounds only the attempts that could not connect and the answers the
// server says to retry.
func attempts(p model.Policy) int {
	if p.Retry {
		return p.MaxAttempts
	}
	return 1
}

// pagination is the plan -json value of op's pagination: nil, or its kind ("link", "url",
// "cursor", "offset", "page"), where retrygen found it (from, and at for an extension),
// the generated methods, the parameter that carries the cursor, and the JSONPaths of the
// items, the next cursor and has_more ("" when there is none).
func pagination(op *model.Operation) any {
	pg := op.Pagination
	if pg == nil {
		return nil
	}
	param := ""
	if pg.Param != nil {
		param = pg.Param.Name
	}
	path := func(p model.Path) string {
		if len(p) == 0 {
			return ""
		}
		return p.String()
	}
	return object{
		{"kind", string(pg.Kind)}, {"from", pg.From}, {"at", pg.At}, {"all", pg.AllName}, {"pages", pg.PagesName},
		{"param", param}, {"items", pg.Items.String()}, {"cursor", path(pg.Cursor)}, {"hasMore", path(pg.More)},
	}
}

// object is a JSON object whose members keep their order.
type object []member

type member struct {
	key   string
	value any
}

// MarshalJSON writes o, for an object held in another.
func (o object) MarshalJSON() ([]byte, error) { return o.marshal() }

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

// planReport is what the plan templates render.
type planReport struct {
	Spec    string // the spec file as named
	Title   string
	Version string
	Count   int
	Retried int
	Wide    bool
	Summary summary
	// Prefix is the start every path shares, which the OPERATION cells leave out ("…").
	Prefix  string
	Headers []string
	Rows    [][]string // one per operation shown, every cell formatted and escaped for its format
	// MoreRows counts the rows left out to keep a Markdown plan within a pull-request
	// comment; Rest lists, folded, the operations that follow the document's policy, and
	// MoreRest those left out of it.
	MoreRows int
	Rest     []string
	MoreRest int
	// Webhooks are the rows of the webhook table (see webhookRows), MoreWebhooks those left
	// out of a Markdown plan.
	Webhooks     [][]string
	MoreWebhooks int
}

// column is one column of the plan table.
type column struct {
	header string
	// fields are the policy fields the column shows (names of policy.Fields, or
	// policy.KeyField); the cell is marked with where they came from.
	fields []string
	value  func(op *model.Operation) string
	// narrow columns make the default table, which fits 100 columns; -wide shows all.
	narrow bool
	// max caps the cell, cut in the middle; 0 for no cap.
	max int
}

// columns of the plan table: every policy field is in exactly one of them.
var columns = []column{
	{header: "OPERATION", narrow: true, value: func(op *model.Operation) string {
		return source.OpName(op.Method, op.Path, op.OperationID)
	}},
	{header: "RETRY", narrow: true, value: func(op *model.Operation) string {
		if op.Policy.IdempotencyKey != "" {
			return yesNo(op.Policy.Retry) + " (key)"
		}
		return yesNo(op.Policy.Retry)
	}},
	{header: "ATTEMPTS", narrow: true, fields: []string{"maxAttempts"}, value: func(op *model.Operation) string {
		p := op.Policy
		if n := attempts(p); n != p.MaxAttempts {
			// Not retried: one attempt, and in parentheses those of a call that did
			// not reach the server or that the server says to retry.
			return fmt.Sprintf("%d (%d)", n, p.MaxAttempts)
		}
		return strconv.Itoa(p.MaxAttempts)
	}},
	{header: "BACKOFF", narrow: true, fields: []string{"initialDelay", "maxDelay", "multiplier"}, value: func(op *model.Operation) string {
		p := op.Policy
		return fmt.Sprintf("%v..%v x%s", p.InitialDelay, p.MaxDelay, strconv.FormatFloat(p.Multiplier, 'g', -1, 64))
	}},
	{header: "JITTER", fields: []string{"jitter"}, value: func(op *model.Operation) string { return string(op.Policy.Jitter) }},
	{header: "STATUSES", narrow: true, fields: []string{"statusCodes"}, max: 24, value: func(op *model.Operation) string {
		if !op.Policy.Retry {
			return "-" // no status is retried
		}
		return statusList(model.StatusTexts(op.Policy.StatusCodes))
	}},
	{header: "METHOD", narrow: true, max: maxMethodCell, value: func(op *model.Operation) string { return op.GoName }},
	{header: "CONN", fields: []string{"connectionErrors"}, value: func(op *model.Operation) string {
		return yesNo(op.Policy.ConnectionErrors)
	}},
	{header: "TIMEOUT", fields: []string{"attemptTimeout"}, value: func(op *model.Operation) string {
		return orDash(op.Policy.AttemptTimeout)
	}},
	{header: "ELAPSED", fields: []string{"maxElapsed"}, value: func(op *model.Operation) string {
		return orDash(op.Policy.MaxElapsed)
	}},
	{header: "RETRY-AFTER", fields: []string{"retryAfter", "maxRetryAfter"}, value: func(op *model.Operation) string {
		if !op.Policy.RetryAfter {
			return "ignored"
		}
		return "up to " + op.Policy.MaxRetryAfter.String()
	}},
	{header: "SIGNALS", fields: []string{"serverSignals"}, value: func(op *model.Operation) string {
		if !op.Policy.ServerSignals {
			return "ignored"
		}
		return "honoured"
	}},
	{header: "KEY", fields: []string{policy.KeyField}, max: 32, value: func(op *model.Operation) string {
		if op.Policy.IdempotencyKey == "" {
			return "-"
		}
		return op.Policy.KeyText()
	}},
	{header: "PAGES", max: 60, value: func(op *model.Operation) string {
		pg := op.Pagination
		if pg == nil {
			return "-"
		}
		v := string(pg.Kind)
		if pg.Param != nil {
			v += " " + pg.Param.Name
		}
		return v + " (" + pg.From + ")"
	}},
	// The text table gives the reason's group, the summary says what each means; Markdown
	// and -json the reason itself.
	{header: "WHY", value: func(op *model.Operation) string { return op.Policy.Reason }},
}

// The caps of the OPERATION and METHOD cells: the default table stays near 100 columns,
// the wide one and Markdown's within a few hundred, whatever the spec's paths and names.
const (
	maxOperationCell     = 36
	maxWideOperationCell = 56
	maxMethodCell        = 40
	// minMarkdownPathCell is as short as the path of an operation whose method name is
	// long is cut in a Markdown plan.
	minMarkdownPathCell = 24
)

// The bounds of a Markdown plan: a pull-request comment holds 65,536 characters, and the
// plan keeps a margin under it for what a CI step adds around it.
const (
	markdownBudget = 60000
	restReserve    = 6000 // what the exceptions leave for the folded list of the others
	maxTextWrites  = 20
	maxMDWrites    = 200
)

// WriteTable writes the plan of api, loaded from the file path, as an aligned text table
// (templates/plan.txt.tmpl): a summary, then a row per operation; by default the columns
// that fit 100 columns, with wide every column and where each value came from.
func WriteTable(w io.Writer, path string, api *model.API, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if err := renderPlan(tw, "plan.txt.tmpl", path, api, wide, termCell); err != nil {
		return err
	}
	return tw.Flush()
}

// WriteMarkdown writes the plan of api, loaded from the file path, for a pull request
// (templates/plan.md.tmpl): the summary, the exceptions (operations whose path item or
// own settings, or an overlay, change their policy) with every column, and the other
// operations folded; always within a pull-request comment's 65,536 characters.
func WriteMarkdown(w io.Writer, path string, api *model.API) error {
	return renderPlan(w, "plan.md.tmpl", path, api, true, markdownCell)
}

func renderPlan(w io.Writer, name, path string, api *model.API, wide bool, cell func(string) string) error {
	t, err := template.New(name).Funcs(template.FuncMap{"wrap": wrapText, "counted": counted}).ParseFS(templates.FS, name)
	if err != nil {
		return fmt.Errorf("plan template: %w", err)
	}
	markdown := name == "plan.md.tmpl"
	rep := planReport{Spec: cell(path), Title: cell(api.Title), Version: cell(api.Version), Count: len(api.Operations), Wide: wide}
	maxWrites := maxTextWrites
	if markdown {
		maxWrites = maxMDWrites
	}
	rep.Summary = summarize(api, cell, maxWrites)
	width := func(int) int { return maxOperationCell }
	switch {
	case markdown:
		// Method names stay whole, where a reviewer searches for them: the path of a
		// long one is cut more, so that the row keeps its width.
		width = func(i int) int {
			return max(minMarkdownPathCell, min(maxWideOperationCell, maxWideOperationCell+maxMethodCell-utf8.RuneCountInString(api.Operations[i].GoName)))
		}
	case wide:
		width = func(int) int { return maxWideOperationCell }
	}
	opCells, prefix := operationCellsWithin(api.Operations, width)
	rep.Prefix = cell(prefix)
	var shown []column
	for _, c := range columns {
		if wide || c.narrow {
			shown = append(shown, c)
			rep.Headers = append(rep.Headers, c.header)
		}
	}
	size := len(rep.Summary.Baseline) + len(rep.Summary.Overlays) + len(rep.Summary.Pages) + 4096 // the template's text
	for _, wr := range rep.Summary.Writes {
		size += len(wr) + 4
	}
	for i, op := range api.Operations {
		if op.Policy.Retry {
			rep.Retried++
		}
		if markdown && !isException(op) {
			continue
		}
		row := make([]string, len(shown))
		rowSize := 0
		for j, c := range shown {
			v := c.value(op)
			switch {
			case c.header == "OPERATION":
				v = opCells[i]
			case c.header == "WHY" && !markdown:
				v = groupOf(op).short
			case c.header == "METHOD" && markdown:
			case c.max > 0:
				v = cutMiddle(v, c.max)
			}
			if wide {
				v += sourceMark(op.Policy, c.fields)
			}
			row[j] = cell(v)
			rowSize += len(row[j]) + 3
		}
		if markdown && size+rowSize > markdownBudget-restReserve {
			rep.MoreRows++
			continue
		}
		size += rowSize
		rep.Rows = append(rep.Rows, row)
	}
	rep.Webhooks = webhookRows(api.Webhooks, wide, cell)
	if markdown && len(rep.Webhooks) > maxMDWebhooks {
		rep.MoreWebhooks = len(rep.Webhooks) - maxMDWebhooks
		rep.Webhooks = rep.Webhooks[:maxMDWebhooks]
	}
	for _, row := range rep.Webhooks {
		for _, c := range row {
			size += len(c) + 3
		}
	}
	if markdown {
		for i, op := range api.Operations {
			if isException(op) {
				continue
			}
			item := cell(opCells[i] + " " + op.GoName)
			if size+len(item)+8 > markdownBudget {
				rep.MoreRest++
				continue
			}
			size += len(item) + 8
			rep.Rest = append(rep.Rest, item)
		}
	}
	return t.Execute(w, rep)
}

// counted says how many things a folded list holds and, when some are left out, how many
// it shows: "43", "243, the first 200 listed".
func counted(shown, more int) string {
	if more == 0 {
		return strconv.Itoa(shown)
	}
	return fmt.Sprintf("%d, the first %d listed", shown+more, shown)
}

// wrapText breaks text into lines of at most 100 columns, at spaces, the lines after the
// first indented by indent spaces: the summary of the text table.
func wrapText(indent int, text string) string {
	return strings.Join(wrap(text, 100, indent), "\n")
}

// sourceMark says where the values of fields came from, when not all from retrygen's
// defaults: " (doc)", " (path)", " (op)", or several joined, " (doc+op)".
func sourceMark(p model.Policy, fields []string) string {
	var marks []string
	for _, src := range []struct {
		from model.Source
		mark string
	}{{model.FromDocument, "doc"}, {model.FromPath, "path"}, {model.FromOperation, "op"}} {
		for _, f := range fields {
			if p.Sources[f] == src.from {
				marks = append(marks, src.mark)
				break
			}
		}
	}
	if len(marks) == 0 {
		return ""
	}
	return " (" + strings.Join(marks, "+") + ")"
}

// statusList writes status codes compactly: runs of three or more consecutive codes as a
// range, "408,429,500,502-504".
func statusList(codes []string) string {
	if len(codes) == 0 {
		return "none"
	}
	var out []string
	for i := 0; i < len(codes); {
		j := i
		for j+1 < len(codes) && consecutive(codes[j], codes[j+1]) {
			j++
		}
		if j-i >= 2 {
			out = append(out, codes[i]+"-"+codes[j])
		} else {
			out = append(out, codes[i:j+1]...)
		}
		i = j + 1
	}
	return strings.Join(out, ",")
}

func consecutive(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	return errA == nil && errB == nil && y == x+1
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.String()
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
		case '\\', '`', '*', '_', '[', ']', '|', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '#':
			b.WriteString("\\#" + zeroWidth) // not a reference to an issue
		case '@':
			b.WriteString("@" + zeroWidth) // not a mention of whoever has that name
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
	return noAutolinks.Replace(b.String())
}

// zeroWidth is a zero-width space, written as an entity: GitHub finds mentions, issue
// references and links in the text a comment renders to, where an escape is gone, and a
// zero-width space after "@" or "#", or inside "://" and "www.", keeps them plain text.
const zeroWidth = "&#8203;"

// noAutolinks breaks what GitHub would turn into a link by itself.
var noAutolinks = strings.NewReplacer("://", ":"+zeroWidth+"//", "www.", "www"+zeroWidth+".", "WWW.", "WWW"+zeroWidth+".")
