package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/diff"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/templates"
)

// DiffSide names one of the two specs compared: the file as the user named it and its API.
type DiffSide struct {
	Path string
	API  *model.API
}

// WriteDiffJSON writes the changes from old to new as one indented JSON object. Its keys
// are a contract with scripts, listed in docs/cli.md: old and new ({path, title,
// version}), counts (level → number, every level present) and changes, an array of
// {area, level, operation, element, name, change, old, new, note}, one per change,
// never grouped.
func WriteDiffJSON(w io.Writer, old, new DiffSide, r *diff.Result) error {
	type side struct {
		Path    string `json:"path"`
		Title   string `json:"title"`
		Version string `json:"version"`
	}
	type change struct {
		Area      diff.Area  `json:"area"`
		Level     diff.Level `json:"level"`
		Operation string     `json:"operation"`
		Element   string     `json:"element"`
		Name      string     `json:"name"`
		Change    string     `json:"change"`
		Old       string     `json:"old"`
		New       string     `json:"new"`
		Note      string     `json:"note"`
	}
	out := struct {
		Old     side           `json:"old"`
		New     side           `json:"new"`
		Counts  map[string]int `json:"counts"`
		Changes []change       `json:"changes"`
	}{
		Old:     side{old.Path, old.API.Title, old.API.Version},
		New:     side{new.Path, new.API.Title, new.API.Version},
		Counts:  map[string]int{},
		Changes: []change{},
	}
	for _, l := range diff.Levels {
		out.Counts[string(l)] = r.Count(l)
	}
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, change(c))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// DiffReport is what the diff templates render, every text already escaped for its
// format.
type DiffReport struct {
	Old, New string // "openai.yaml (OpenAI API 2.3.0)"
	// Header is "old: Old" and "new: New" wrapped for the terminal.
	Header []string
	Counts string // "2 breaking, 0 loosened, 0 tightened, 0 changed, 5 compatible"
	Groups []DiffGroup
	Empty  bool // no change at all
}

// DiffGroup is the changes of one area and level, e.g. the breaking Go API changes.
type DiffGroup struct {
	Title string // "Go API, breaking"
	Count int
	// Collapse folds a long group of compatible, changed or tightened changes into a
	// <details> element of the Markdown report.
	Collapse bool
	Rows     []DiffRow
}

// DiffRow is one change, or the same change to several operations.
type DiffRow struct {
	// Where names the operation, "3 operations" for several, "" for a type.
	Where string
	// Operations lists the operations of a row that stands for several.
	Operations []string
	// OperationList is Operations joined with <br>, for a Markdown cell.
	OperationList string
	What          string // "field Pet.Name", "maxAttempts", "error response 429"
	Change        string // added, removed, changed, deprecated, moved
	Old, New      string
	Note          string
	// Lines are the row as wrapped text lines for the terminal.
	Lines []string
}

// diffWidth is the width of the terminal report.
const diffWidth = 100

// collapseOver is the size beyond which a Markdown group is folded.
const collapseOver = 10

// shownOperations is how many operations the terminal report names for a row that stands
// for several.
const shownOperations = 3

// WriteDiffTable writes the changes as text for a terminal, lines at most 100 columns
// wide (templates/diff.txt.tmpl).
func WriteDiffTable(w io.Writer, old, new DiffSide, r *diff.Result) error {
	return renderDiff(w, "diff.txt.tmpl", old, new, r, termCell)
}

// WriteDiffMarkdown writes the changes as Markdown for a pull request comment, long
// groups folded (templates/diff.md.tmpl).
func WriteDiffMarkdown(w io.Writer, old, new DiffSide, r *diff.Result) error {
	return renderDiff(w, "diff.md.tmpl", old, new, r, markdownCell)
}

func renderDiff(w io.Writer, name string, old, new DiffSide, r *diff.Result, cell func(string) string) error {
	t, err := template.ParseFS(templates.FS, name)
	if err != nil {
		return fmt.Errorf("diff template: %w", err)
	}
	side := func(s DiffSide) string {
		v := s.API.Title
		if s.API.Version != "" {
			v += " " + s.API.Version
		}
		return cell(s.Path) + " (" + cell(v) + ")"
	}
	var counts []string
	for _, l := range diff.Levels {
		counts = append(counts, fmt.Sprintf("%d %s", r.Count(l), l))
	}
	rep := DiffReport{Old: side(old), New: side(new), Counts: strings.Join(counts, ", "), Empty: len(r.Changes) == 0}
	rep.Header = append(wrap("old: "+rep.Old, diffWidth, 5), wrap("new: "+rep.New, diffWidth, 5)...)
	for _, area := range []diff.Area{diff.Policy, diff.API, diff.Webhook} {
		for _, level := range diff.Levels {
			var changes []diff.Change
			for _, c := range r.Changes {
				if c.Area == area && c.Level == level {
					changes = append(changes, c)
				}
			}
			if len(changes) == 0 {
				continue
			}
			title := map[diff.Area]string{diff.Policy: "Retry policy, ", diff.API: "Go API, ", diff.Webhook: "Webhooks, "}[area]
			g := DiffGroup{Title: title + string(level), Count: len(changes)}
			for _, rc := range group(changes) {
				g.Rows = append(g.Rows, diffRow(rc, cell))
			}
			// Breaking changes and loosened rules fail the run: they stay in view.
			g.Collapse = len(g.Rows) > collapseOver && level != diff.Breaking && level != diff.Loosened
			rep.Groups = append(rep.Groups, g)
		}
	}
	return t.Execute(w, rep)
}

// rowChanges is the same change to one or more operations.
type rowChanges struct {
	diff.Change
	operations []string
}

// group merges changes that differ only in their operation, such as an error response
// added to every operation, keeping the order of their first occurrence.
func group(changes []diff.Change) []rowChanges {
	var rows []rowChanges
	at := map[diff.Change]int{}
	for _, c := range changes {
		key := c
		key.Operation = ""
		if c.Operation == "" {
			rows = append(rows, rowChanges{Change: c})
			continue
		}
		if i, ok := at[key]; ok {
			rows[i].operations = append(rows[i].operations, c.Operation)
			continue
		}
		at[key] = len(rows)
		rows = append(rows, rowChanges{Change: c, operations: []string{c.Operation}})
	}
	return rows
}

// elementWords are how the report names an element.
var elementWords = map[string]string{
	diff.ElemRetry:     "retry",
	diff.ElemXRetry:    "",
	diff.ElemKey:       "idempotency key",
	diff.ElemOperation: "operation",
	diff.ElemMethod:    "method",
	diff.ElemArgument:  "argument",
	diff.ElemResult:    "result of",
	diff.ElemParameter: "parameter",
	diff.ElemError:     "error response",
	diff.ElemType:      "type",
	diff.ElemField:     "field",
	diff.ElemEnumValue: "enum value",
	diff.ElemVariant:   "variant",
	diff.ElemWebhook:   "method",
	diff.ElemSignature: "signature scheme",
	diff.ElemTolerance: "signature tolerance",
	diff.ElemID:        "delivery id",
	diff.ElemTTL:       "dedupe TTL",
}

func diffRow(rc rowChanges, cell func(string) string) DiffRow {
	c := rc.Change
	what := strings.TrimSpace(elementWords[c.Element] + " " + c.Name)
	row := DiffRow{What: cell(what), Change: c.Change, Old: cell(c.Old), New: cell(c.New), Note: cell(c.Note)}
	switch len(rc.operations) {
	case 0:
	case 1:
		row.Where = cell(rc.operations[0])
	default:
		row.Where = strconv.Itoa(len(rc.operations)) + " operations"
		for _, op := range rc.operations {
			row.Operations = append(row.Operations, cell(op))
		}
		row.OperationList = strings.Join(row.Operations, "<br>")
	}

	row.Lines = termLines(row, c)
	if len(row.Operations) > 0 {
		ops := row.Operations
		list := strings.Join(ops[:min(len(ops), shownOperations)], ", ")
		if len(ops) > shownOperations {
			list += fmt.Sprintf(" and %d more", len(ops)-shownOperations)
		}
		row.Lines = append(row.Lines, wrap("    "+list, diffWidth-2, 4)...)
	}
	return row
}

// termLines spells a row for the terminal: "[where: ]what change[: values][ (note)]" on
// one line when it fits, else the values on lines of their own.
func termLines(row DiffRow, c diff.Change) []string {
	head := row.What
	if row.Where != "" {
		head = row.Where + ": " + head
	}
	note := ""
	if row.Note != "" {
		note = " (" + row.Note + ")"
	}
	var values string
	switch c.Change {
	case diff.Added:
		head += " added"
		values = row.New
	case diff.Removed:
		head += " removed"
		values = row.Old
	case diff.Renamed: // both names: the row names the type by its new one only
		head += " renamed"
		values = row.Old + " → " + row.New
	case diff.Modified, diff.Moved:
		if c.Change == diff.Moved {
			head += " moved"
		}
		if c.Old != "" || c.New != "" {
			values = orNone(row.Old) + " → " + orNone(row.New)
		} else {
			head += " changed"
		}
	default:
		head += " " + c.Change
	}
	line := head
	if values != "" {
		line += ": " + values
	}
	line += note
	if utf8.RuneCountInString(line) <= diffWidth-2 || values == "" || c.Change != diff.Modified {
		return wrap(line, diffWidth-2, 4)
	}
	lines := wrap(head+" changed"+note, diffWidth-2, 4)
	lines = append(lines, wrap("    old: "+orNone(row.Old), diffWidth-2, 9)...)
	return append(lines, wrap("    new: "+orNone(row.New), diffWidth-2, 9)...)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// wrap breaks s into lines of at most width runes, at spaces where it can, indenting
// every line after the first by indent spaces.
func wrap(s string, width, indent int) []string {
	var lines []string
	pad := ""
	for {
		avail := width - len(pad)
		if utf8.RuneCountInString(s) <= avail {
			return append(lines, pad+s)
		}
		cut := runeOffset(s, avail)
		if sp := strings.LastIndexByte(s[:cut+1], ' '); sp > len(s[:cut])/3 {
			cut = sp
		}
		lines = append(lines, pad+strings.TrimRight(s[:cut], " "))
		s = strings.TrimLeft(s[cut:], " ")
		pad = strings.Repeat(" ", indent)
	}
}

// runeOffset is the byte offset of the n-th rune of s (len(s) when s is shorter).
func runeOffset(s string, n int) int {
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}
