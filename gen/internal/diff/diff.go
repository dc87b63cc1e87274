// Package diff compares two versions of an API, as built into the model, the way a
// reviewer of a spec change needs it: each operation's retry policy, and the Go API of the
// generated client (methods, arguments, parameters, types, fields, enum values; the walks
// of a paginated operation and the struct of its page among them). It reads
// only the model, so names the generated code keeps to itself (policy variables, error
// mappings) are not noise.
//
// Each change has a level. Go API changes are breaking or compatible as
// golang.org/x/exp/apidiff would judge the generated package:
//
//   - breaking: anything a caller's code may no longer compile against: a method, type,
//     field, parameter, enum constant or union variant removed; a type renamed (one gone
//     and one new of the same content); a type changed (argument,
//     result, field, underlying or alias type, kind of declaration); a method argument
//     added or removed (a path parameter, the params struct, the body, a result); an enum
//     constant's value changed; an error model that loses its Error method.
//   - compatible: additions a caller need not know about: methods, types, struct fields,
//     fields of a params struct (even a required one: the method's signature is
//     unchanged, though the server may now reject calls that leave it empty, which the
//     note says), enum constants, union variants; a field or parameter that becomes
//     required or optional without changing its Go type; an error response added,
//     removed or decoded into another type (errors.As targets, not signatures);
//     deprecations; an operation that moves to another method or path.
//
// Policy changes are matched by operationId, else by method and path, and are:
//
//   - loosened: an operation that becomes retried, or more attempts on one that is not
//     idempotent;
//   - tightened: an operation that stops being retried, or fewer attempts;
//   - changed: any other x-retry field, or the idempotency key.
package diff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// Area says which part of the comparison a change belongs to.
type Area string

const (
	Policy Area = "policy" // an operation's retry policy
	API    Area = "api"    // the generated Go API
)

// Level says how much a change matters to a caller.
type Level string

const (
	Breaking   Level = "breaking"   // a caller's code may no longer compile
	Loosened   Level = "loosened"   // more is retried than before
	Tightened  Level = "tightened"  // less is retried than before
	Changed    Level = "changed"    // another policy change
	Compatible Level = "compatible" // an API change no caller has to follow
)

// Levels are the levels, most serious first: the order of a report.
var Levels = []Level{Breaking, Loosened, Tightened, Changed, Compatible}

// Kind of change.
const (
	Added      = "added"
	Removed    = "removed"
	Modified   = "changed"
	Deprecated = "deprecated"
	Moved      = "moved"
	Renamed    = "renamed" // a type: Old and New are its names
)

// What a change is about, its Element.
const (
	ElemRetry     = "retry"          // Old and New are "yes: reason" or "no: reason"
	ElemXRetry    = "x-retry"        // Name is the field, e.g. "maxAttempts"
	ElemKey       = "idempotencyKey" // Old and New are header names
	ElemOperation = "operation"      // moved: Old and New are "METHOD /path"
	ElemMethod    = "method"         // Name is the Go method; Old/New its signature
	ElemArgument  = "argument"       // Name is the method and argument, e.g. "GetPet(petID)"
	ElemResult    = "result"         // Name is the method
	ElemParameter = "parameter"      // a field of a params struct, e.g. "ListPetsParams.Limit"
	ElemError     = "errorResponse"  // Name is the status, e.g. "429"
	ElemType      = "type"           // Name is the type
	ElemField     = "field"          // Name is "Type.Field"
	ElemEnumValue = "enumValue"      // Name is the constant
	ElemVariant   = "variant"        // Name is "Union.Variant"
)

// Change is one difference between the old and the new API.
type Change struct {
	Area  Area
	Level Level
	// Operation names the operation the change belongs to, e.g.
	// "POST /orders (createOrder)" (the new one when it moved); "" for a type.
	Operation string
	// Element says what changed (one of the Elem constants) and Name which one, e.g.
	// "field" and "Pet.Name".
	Element, Name string
	// Change is added, removed, changed, deprecated or moved.
	Change string
	// Old and New are the values before and after, as text ("" when none): a Go type, a
	// signature, a policy value.
	Old, New string
	// Note adds what the values do not say, e.g. "required".
	Note string
}

// Result is every change between two APIs, policy changes first, each area sorted by
// level, then in the order of the new API.
type Result struct {
	Changes []Change
}

// Count returns how many changes have level l.
func (r *Result) Count(l Level) int {
	n := 0
	for _, c := range r.Changes {
		if c.Level == l {
			n++
		}
	}
	return n
}

// Compare returns the changes from old to new.
func Compare(old, new *model.API) *Result {
	var c comparer
	c.policies(old, new)
	c.methods(old, new)
	c.decls(old, new)
	c.webhooks(old, new)
	rank := func(ch Change) int {
		a := 0
		switch ch.Area {
		case API:
			a = 1
		case Webhook:
			a = 2
		}
		return a*len(Levels) + slices.Index(Levels, ch.Level)
	}
	slices.SortStableFunc(c.changes, func(a, b Change) int { return rank(a) - rank(b) })
	return &Result{Changes: c.changes}
}

type comparer struct {
	changes []Change
	// paramsCompared holds the params structs compared so far: the methods of one
	// operation share one, whose fields are reported once.
	paramsCompared map[string]bool
}

func (c *comparer) add(ch Change) { c.changes = append(c.changes, ch) }

func opName(op *model.Operation) string {
	return source.OpName(op.Method, op.Path, op.OperationID)
}

// matchOperations pairs each new operation with its old one: by operationId when both
// have one, else by method and path. Unpaired operations are added or removed.
func matchOperations(old, new *model.API) map[*model.Operation]*model.Operation {
	byID := map[string]*model.Operation{}
	byRoute := map[string]*model.Operation{}
	for _, op := range old.Operations {
		if op.OperationID != "" {
			byID[op.OperationID] = op
		}
		byRoute[route(op)] = op
	}
	pairs := map[*model.Operation]*model.Operation{}
	used := map[*model.Operation]bool{}
	for _, op := range new.Operations {
		if o := byID[op.OperationID]; op.OperationID != "" && o != nil {
			pairs[op] = o
			used[o] = true
		}
	}
	for _, op := range new.Operations {
		if pairs[op] != nil {
			continue
		}
		if o := byRoute[route(op)]; o != nil && !used[o] {
			pairs[op] = o
			used[o] = true
		}
	}
	return pairs
}

func route(op *model.Operation) string { return strings.ToUpper(op.Method) + " " + op.Path }

// policies compares the policy of every operation present in both.
func (c *comparer) policies(old, new *model.API) {
	pairs := matchOperations(old, new)
	for _, n := range new.Operations {
		o := pairs[n]
		if o == nil {
			continue
		}
		name := opName(n)
		if route(o) != route(n) {
			c.add(Change{Area: API, Level: Compatible, Operation: name, Element: ElemOperation,
				Change: Moved, Old: route(o), New: route(n)})
		}
		op, np := &o.Policy, &n.Policy
		if op.Retry != np.Retry {
			level := Tightened
			if np.Retry {
				level = Loosened
			}
			c.add(Change{Area: Policy, Level: level, Operation: name, Element: ElemRetry,
				Change: Modified, Old: retried(op), New: retried(np)})
		}
		for _, f := range policy.Fields {
			ov, nv := format(f.Value(op)), format(f.Value(np))
			if ov == nv {
				continue
			}
			level := Changed
			if f.Name == "maxAttempts" {
				switch {
				case np.MaxAttempts > op.MaxAttempts && !np.Idempotent:
					level = Loosened
				case np.MaxAttempts < op.MaxAttempts:
					level = Tightened
				}
			}
			ch := Change{Area: Policy, Level: level, Operation: name, Element: ElemXRetry,
				Name: f.Name, Change: Modified, Old: ov, New: nv}
			if level == Loosened {
				ch.Note = "not idempotent: more attempts that could not connect"
			}
			c.add(ch)
		}
		if op.KeyText() != np.KeyText() {
			ch := Change{Area: Policy, Level: Changed, Operation: name, Element: ElemKey,
				Change: Modified, Old: op.KeyText(), New: np.KeyText()}
			switch {
			case op.IdempotencyKey == "":
				ch.Change = Added
			case np.IdempotencyKey == "":
				ch.Change = Removed
			}
			c.add(ch)
		}
	}
}

// retried says whether p retries, and why: "yes: GET is safe (RFC 9110 §9.2.1)".
func retried(p *model.Policy) string {
	s := "no"
	if p.Retry {
		s = "yes"
	}
	if p.Reason != "" {
		s += ": " + p.Reason
	}
	return s
}

// format spells a policy.Field value as `retrygen plan` does.
func format(v any) string {
	switch v := v.(type) {
	case time.Duration:
		return v.String()
	case []runtime.StatusCode:
		return strings.Join(model.StatusTexts(v), ",")
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
