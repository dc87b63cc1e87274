package report

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/model"
)

// What a reviewer of a plan looks at first: how many operations are retried and why, the
// writes that are not, what overlays changed, which lists are walked; then the exceptions,
// the operations whose policy the path item or the operation itself changes.

// reasonGroup is why an operation is retried or not, as the summary counts it.
type reasonGroup struct {
	retried   bool
	one, many string // e.g. "safe method (GET, HEAD, OPTIONS, TRACE)", "safe methods (...)"
	short     string // the WHY cell of the text table, e.g. "safe method"
}

// The groups, in the order the summary lists them.
var (
	groupSafe       = reasonGroup{true, "safe method (GET, HEAD, OPTIONS, TRACE)", "safe methods (GET, HEAD, OPTIONS, TRACE)", "safe method"}
	groupIdemMethod = reasonGroup{true, "idempotent method (PUT, DELETE)", "idempotent methods (PUT, DELETE)", "idempotent method"}
	groupKey        = reasonGroup{true, "with an idempotency key", "with an idempotency key", "idempotency key"}
	groupDeclared   = reasonGroup{true, "declared idempotent (x-idempotent: true)", "declared idempotent (x-idempotent: true)", "x-idempotent: true"}
	groupNoKey      = reasonGroup{false, "write without an idempotency key", "writes without an idempotency key", "write, no key"}
	groupOptedOut   = reasonGroup{false, "opted out (x-idempotent: false)", "opted out (x-idempotent: false)", "x-idempotent: false"}
	groupOff        = reasonGroup{false, "retry-safe, with retries turned off (maxAttempts 1)", "retry-safe, with retries turned off (maxAttempts 1)", "maxAttempts 1"}
	groups          = []reasonGroup{groupSafe, groupIdemMethod, groupKey, groupDeclared, groupNoKey, groupOptedOut, groupOff}
)

// counted writes n and the group's text, singular or plural: "2 safe methods (...)".
func (g reasonGroup) counted(n int) string {
	if n == 1 {
		return "1 " + g.one
	}
	return strconv.Itoa(n) + " " + g.many
}

// groupOf says why op is retried or not.
func groupOf(op *model.Operation) reasonGroup {
	p := op.Policy
	switch {
	case !p.Idempotent && isIdempotentMethod(op.Method):
		return groupOptedOut
	case !p.Idempotent:
		return groupNoKey
	case !p.Retry:
		return groupOff
	case isSafeMethod(op.Method):
		return groupSafe
	case isIdempotentMethod(op.Method):
		return groupIdemMethod
	case p.IdempotencyKey != "":
		return groupKey
	}
	return groupDeclared
}

func isSafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

func isIdempotentMethod(m string) bool {
	return isSafeMethod(m) || m == http.MethodPut || m == http.MethodDelete
}

// isException reports an operation whose policy its path item or itself changes, or
// that an overlay changed: the rows a review looks at.
func isException(op *model.Operation) bool {
	if len(op.Policy.Overlays) > 0 {
		return true
	}
	for _, src := range op.Policy.Sources {
		if src == model.FromPath || src == model.FromOperation {
			return true
		}
	}
	return false
}

// summary is the review's first part, every text already made safe for its format.
type summary struct {
	Retried    string   // "7 of 10: 2 safe methods (...), 3 with an idempotency key, ..."
	NotRetried string   // "3: 1 write without ..., ..."
	Writes     []string // the writes not retried, each "POST /orders (CreateOrder)"
	MoreWrites int      // writes left out of Writes to stay short
	Baseline   string   // the policy of the operations that are not exceptions
	Overlays   string   // "retries.yaml set 3 values on 2 operations"; "" without overlays
	Pages      string   // "147 operations: link (Link header) 147"; "" when none
	Exceptions int      // operations whose path item or own settings change the policy
}

// summarize counts api's operations for the review; cell makes text safe for the format,
// and maxWrites bounds the writes listed.
func summarize(api *model.API, cell func(string) string, maxWrites int) summary {
	var s summary
	count := map[reasonGroup]int{}
	pages := map[string]int{}
	overlayValues, overlayOps := map[string]int{}, map[string]int{}
	retried, paged := 0, 0
	var baseline *model.Operation
	for _, op := range api.Operations {
		g := groupOf(op)
		count[g]++
		if g.retried {
			retried++
		}
		if g == groupNoKey {
			if len(s.Writes) < maxWrites {
				s.Writes = append(s.Writes, cell(op.Method+" "+op.Path+" ("+op.GoName+")"))
			} else {
				s.MoreWrites++
			}
		}
		if pg := op.Pagination; pg != nil {
			paged++
			pages[string(pg.Kind)+" ("+pg.From+")"]++
		}
		files := map[string]bool{}
		for _, at := range op.Policy.Overlays {
			file := overlayFile(at)
			overlayValues[file]++
			files[file] = true
		}
		for f := range files {
			overlayOps[f]++
		}
		if isException(op) {
			s.Exceptions++
		} else if baseline == nil && op.Policy.Retry {
			baseline = op
		}
	}
	var parts []string
	for _, g := range groups {
		if n := count[g]; n > 0 && g.retried {
			parts = append(parts, g.counted(n))
		}
	}
	s.Retried = fmt.Sprintf("%d of %d", retried, len(api.Operations))
	if len(parts) > 0 {
		s.Retried += ": " + strings.Join(parts, ", ")
	}
	parts = nil
	for _, g := range groups {
		if n := count[g]; n > 0 && !g.retried {
			parts = append(parts, g.counted(n))
		}
	}
	s.NotRetried = strconv.Itoa(len(api.Operations) - retried)
	if len(parts) > 0 {
		s.NotRetried += ": " + strings.Join(parts, ", ")
	}
	if baseline != nil {
		s.Baseline = cell(policyText(baseline.Policy))
	}
	var ov []string
	for _, f := range slices.Sorted(mapKeys(overlayValues)) {
		ov = append(ov, fmt.Sprintf("%s set %s on %s", f, plural(overlayValues[f], "value"), plural(overlayOps[f], "operation")))
	}
	s.Overlays = cell(strings.Join(ov, "; "))
	if paged > 0 {
		var pp []string
		for _, k := range slices.Sorted(mapKeys(pages)) {
			pp = append(pp, fmt.Sprintf("%s %d", k, pages[k]))
		}
		s.Pages = cell(fmt.Sprintf("%s walk their pages: %s", plural(paged, "operation"), strings.Join(pp, ", ")))
	}
	return s
}

// plural writes n and noun, with an s when n is not 1: "1 operation", "3 operations".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// overlayFile is the file of an overlay place, "keys.yaml" of "keys.yaml:9:7".
func overlayFile(at string) string {
	for range 2 {
		if i := strings.LastIndexByte(at, ':'); i > 0 {
			if _, err := strconv.Atoi(at[i+1:]); err == nil {
				at = at[:i]
			}
		}
	}
	return at
}

// policyText describes a retried policy in a line: "up to 4 attempts on
// 408,429,500,502-504, backoff 500ms..10s x2, full jitter, connection errors retried,
// Retry-After honoured up to 1m0s".
func policyText(p model.Policy) string {
	s := fmt.Sprintf("up to %d attempts on %s, backoff %v..%v x%s, %s jitter", p.MaxAttempts, statusList(model.StatusTexts(p.StatusCodes)),
		p.InitialDelay, p.MaxDelay, strconv.FormatFloat(p.Multiplier, 'g', -1, 64), p.Jitter)
	if p.ConnectionErrors {
		s += ", connection errors retried"
	}
	if p.RetryAfter {
		s += ", Retry-After honoured up to " + p.MaxRetryAfter.String()
	}
	if p.AttemptTimeout > 0 {
		s += ", " + p.AttemptTimeout.String() + " per attempt"
	}
	if p.MaxElapsed > 0 {
		s += ", " + p.MaxElapsed.String() + " in all"
	}
	return s
}

// operationCells returns the OPERATION cell of each operation of ops, "GET /pets/{id}",
// each at most width runes: the prefix every path shares is dropped (and returned, ""
// when there is none), written "…"; a longer cell is cut in the middle, and cells that
// a cut would make alike are cut less, so that no two rows read the same.
func operationCells(ops []*model.Operation, width int) ([]string, string) {
	return operationCellsWithin(ops, func(int) int { return width })
}

// operationCellsWithin is operationCells with the width of each cell its own: width(i)
// for the i-th of ops.
func operationCellsWithin(ops []*model.Operation, width func(i int) int) ([]string, string) {
	prefix := commonPrefix(ops)
	full := make([]string, len(ops))
	for i, op := range ops {
		path := op.Path
		if prefix != "" {
			path = "…" + strings.TrimPrefix(path, prefix)
		}
		full[i] = op.Method + " " + path
	}
	widths := make([]int, len(ops))
	for i := range widths {
		widths[i] = width(i)
	}
	cells := make([]string, len(ops))
	for range 64 { // each round widens the cells that collide; uncut cells are all distinct
		seen := map[string][]int{}
		for i, s := range full {
			cells[i] = cutMiddle(s, widths[i])
			seen[cells[i]] = append(seen[cells[i]], i)
		}
		again := false
		for _, same := range seen {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if utf8.RuneCountInString(cells[i]) < utf8.RuneCountInString(full[i]) {
					widths[i] += 4
					again = true
				}
			}
		}
		if !again {
			break
		}
	}
	return cells, prefix
}

// commonPrefix returns the leading path segments every operation's path shares, short of
// any path's last segment ("/2010-04-01/Accounts/{AccountSid}"); "" when they share none,
// or there are fewer than two operations.
func commonPrefix(ops []*model.Operation) string {
	if len(ops) < 2 {
		return ""
	}
	var common []string
	for i, op := range ops {
		segs := strings.Split(op.Path, "/")
		segs = segs[:len(segs)-1] // the last segment stays, so no path is cut to nothing
		if i == 0 {
			common = segs
			continue
		}
		n := 0
		for n < len(common) && n < len(segs) && common[n] == segs[n] {
			n++
		}
		common = common[:n]
	}
	prefix := strings.Join(common, "/")
	if utf8.RuneCountInString(prefix) < 4 { // "/v1" says little, and "…" costs as much
		return ""
	}
	return prefix
}

// cutMiddle shortens s to width runes by replacing its middle with "…", keeping more of
// its end, where paths differ; s itself when it fits.
func cutMiddle(s string, width int) string {
	r := []rune(s)
	if len(r) <= width || width < 5 {
		return s
	}
	head := (width - 1) * 2 / 5
	tail := width - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
