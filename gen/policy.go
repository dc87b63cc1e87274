package gen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// Extension names read from the spec.
const (
	extRetry          = "x-retry"
	extIdempotencyKey = "x-idempotency-key"
	extIdempotent     = "x-idempotent"
	extSpeakeasy      = "x-speakeasy-retries"
)

// DefaultIdempotencyKey is the header `x-idempotency-key: true` names.
const DefaultIdempotencyKey = "Idempotency-Key"

// Hard limits on x-retry values: beyond them a value is a mistake, not a policy.
const (
	maxMaxAttempts = 100
	maxDuration    = 24 * time.Hour
	maxMultiplier  = 100
)

// methodOrder is the order of operations within one path.
var methodOrder = []string{
	http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace,
}

// DefaultPolicy returns the built-in policy, every source "default": the runtime's
// defaults, so that the generator and the engine cannot disagree on them. Retry and Reason
// are left for the method rules to decide.
func DefaultPolicy() model.Policy {
	rp := runtime.DefaultPolicy()
	codes := make([]string, len(rp.StatusCodes))
	for i, c := range rp.StatusCodes {
		codes[i] = strconv.Itoa(int(c))
		if c < 10 { // a class, runtime.Class5XX
			codes[i] += "XX"
		}
	}
	p := model.Policy{
		MaxAttempts:      rp.MaxAttempts,
		InitialDelay:     rp.InitialDelay,
		MaxDelay:         rp.MaxDelay,
		Multiplier:       rp.Multiplier,
		Jitter:           string(rp.Jitter),
		StatusCodes:      codes,
		ConnectionErrors: rp.ConnectionErrors,
		AttemptTimeout:   rp.AttemptTimeout,
		MaxElapsed:       rp.MaxElapsed,
		RetryAfter:       rp.RetryAfter,
		MaxRetryAfter:    rp.MaxRetryAfter,
		Sources:          map[string]model.Source{},
	}
	for _, f := range retryFields {
		p.Sources[f] = model.FromDefault
	}
	p.Sources["idempotencyKey"] = model.FromDefault
	return p
}

// retryFields are the fields of x-retry, in the order DESIGN.md lists them.
var retryFields = []string{
	"maxAttempts", "initialDelay", "maxDelay", "multiplier", "jitter", "statusCodes",
	"connectionErrors", "attemptTimeout", "maxElapsed", "retryAfter", "maxRetryAfter",
}

// level is one place extensions are read from: the document, a path item or an operation.
type level struct {
	source  model.Source
	ext     map[string]any
	origin  *openapi3.Origin
	pointer string // JSON pointer of the object, e.g. "#/paths/~1pets/get"
}

// overrides is what one level's x-retry (and x-speakeasy-retries) sets.
type overrides struct {
	set  map[string]bool
	p    model.Policy
	off  bool // x-retry: false, or Speakeasy strategy none
	seen bool // an x-retry or x-speakeasy-retries is present
}

// Operations lists every operation of the spec in a stable order (paths sorted, methods
// GET PUT POST DELETE OPTIONS HEAD PATCH TRACE, then any others sorted) with its resolved
// retry policy. GoName is left empty. It reports every malformed extension, operation-
// level x-retry on an operation that may not be retried, and duplicate operationIds.
func (s *Spec) Operations() ([]*model.Operation, error) {
	var errs ErrorList
	doc := s.Doc
	docLevel := level{source: model.FromDocument, ext: doc.Extensions, origin: doc.Origin, pointer: "#"}
	docOv := s.readOverrides(docLevel, "", &errs)
	s.checkIdempotentPlacement(docLevel, "", &errs)

	var ops []*model.Operation
	type place struct {
		op  string
		pos Pos
	}
	ids := map[string][]place{}
	paths := sortedKeys(doc.Paths.Map())
	for _, path := range paths {
		item := doc.Paths.Value(path)
		if item == nil {
			continue
		}
		pathLevel := level{source: model.FromPath, ext: item.Extensions, origin: item.Origin, pointer: "#/paths/" + escapePointer(path)}
		pathOv := s.readOverrides(pathLevel, "", &errs)
		s.checkIdempotentPlacement(pathLevel, "", &errs)
		for _, m := range operationMethods(item) {
			op := item.GetOperation(m.method)
			if op == nil {
				continue
			}
			name := OpName(m.method, path, op.OperationID)
			opLevel := level{source: model.FromOperation, ext: op.Extensions, origin: op.Origin, pointer: pathLevel.pointer + m.pointer}
			pol := s.resolvePolicy(m.method, name, item, op, docOv, pathOv, []level{docLevel, pathLevel, opLevel}, &errs)
			ops = append(ops, &model.Operation{
				Method:      m.method,
				Path:        path,
				OperationID: op.OperationID,
				Summary:     op.Summary,
				Description: op.Description,
				Deprecated:  op.Deprecated,
				Policy:      pol,
			})
			if op.OperationID != "" {
				ids[op.OperationID] = append(ids[op.OperationID], place{op: name, pos: s.opPos(opLevel)})
			}
		}
	}
	for _, id := range sortedKeys(ids) {
		places := ids[id]
		if len(places) < 2 {
			continue
		}
		for i, p := range places {
			var others []string
			for j, q := range places {
				if j != i {
					others = append(others, q.op+" at "+q.pos.String())
				}
			}
			errs.Add(&Error{
				Pos: p.pos, Op: p.op,
				Msg: fmt.Sprintf("duplicate operationId %q, also used by %s", id, strings.Join(others, ", ")),
				Fix: "give each operation its own operationId",
			})
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return ops, nil
}

type methodEntry struct {
	method  string
	pointer string // e.g. "/get" or "/additionalOperations/COPY"
}

// operationMethods lists the methods item defines, in the documented order.
func operationMethods(item *openapi3.PathItem) []methodEntry {
	var out []methodEntry
	for _, m := range methodOrder {
		if item.GetOperation(m) != nil {
			out = append(out, methodEntry{m, "/" + strings.ToLower(m)})
		}
	}
	var rest []methodEntry
	for m := range item.Operations() {
		if slices.Contains(methodOrder, m) {
			continue
		}
		ptr := "/" + strings.ToLower(m)
		if _, ok := item.AdditionalOperations[m]; ok && m != openapi3.MethodQuery {
			ptr = "/additionalOperations/" + escapePointer(m)
		}
		rest = append(rest, methodEntry{m, ptr})
	}
	slices.SortFunc(rest, func(a, b methodEntry) int { return cmp.Compare(a.method, b.method) })
	return append(out, rest...)
}

func (s *Spec) opPos(l level) Pos {
	if p := s.PosOf(l.origin); p.IsValid() {
		return p
	}
	return s.PosOfPointer(l.pointer)
}

// extPos locates an extension of a level, or a place inside its value.
func (s *Spec) extPos(l level, ext string, inside ...string) Pos {
	if l.origin != nil {
		if loc, ok := l.origin.Fields.Lookup(ext); ok {
			return s.posWithin(s.posOfLocation(loc), inside...)
		}
	}
	ptr := l.pointer + "/" + escapePointer(ext)
	for _, p := range inside {
		ptr += "/" + escapePointer(p)
	}
	return s.PosOfPointer(ptr)
}

// resolvePolicy applies the rules of DESIGN.md "Which operations may be retried" and
// "Spec extensions" to one operation.
func (s *Spec) resolvePolicy(method, name string, item *openapi3.PathItem, op *openapi3.Operation,
	docOv, pathOv overrides, levels []level, errs *ErrorList) model.Policy {
	opLevel := levels[2]
	opOv := s.readOverrides(opLevel, name, errs)
	pol := DefaultPolicy()

	key, keySource, keyWhy := s.idempotencyKey(method, name, item, op, levels, errs)
	pol.IdempotencyKey = key
	pol.Sources["idempotencyKey"] = keySource

	idem, idemSet := s.idempotentFlag(opLevel, name, errs)
	switch {
	case method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions || method == http.MethodTrace:
		pol.Idempotent = true
		pol.Reason = method + " is safe (RFC 9110 §9.2.1)"
	case method == http.MethodPut || method == http.MethodDelete:
		if idemSet && !idem {
			pol.Reason = method + " opted out with x-idempotent: false"
		} else {
			pol.Idempotent = true
			pol.Reason = method + " is idempotent (RFC 9110 §9.2.2)"
		}
	case key != "":
		pol.Idempotent = true
		pol.Reason = fmt.Sprintf("%s sends an idempotency key in %q (%s)", method, key, keyWhy)
	case idemSet && idem:
		pol.Idempotent = true
		pol.Reason = method + " is declared idempotent (x-idempotent: true)"
	default:
		pol.Reason = method + " is not idempotent and has no idempotency key (RFC 9110 §9.2.2)"
	}
	if key != "" && !pol.Idempotent {
		// PUT or DELETE with x-idempotent: false still sends its key; it is just not retried.
		pol.Reason += "; the idempotency key is still sent"
	}

	if pol.Idempotent {
		for _, ov := range []struct {
			o   overrides
			src model.Source
		}{{docOv, model.FromDocument}, {pathOv, model.FromPath}, {opOv, model.FromOperation}} {
			apply(&pol, ov.o, ov.src)
		}
	} else {
		if opOv.seen && !opOv.off {
			ext := retryOrSpeakeasy(opLevel)
			fix := "add x-idempotency-key: true (if the server deduplicates requests by an Idempotency-Key header) " +
				"or x-idempotent: true (if repeating the request is harmless), or remove " + ext
			if isIdempotentMethod(method) {
				fix = "remove x-idempotent: false, or remove " + ext
			}
			errs.Add(&Error{
				Pos: s.extPos(opLevel, ext),
				Op:  name,
				Msg: fmt.Sprintf("%s on an operation that may not be retried: %s", ext, pol.Reason),
				Fix: fix,
			})
		}
		// Document and path x-retry do not apply here, except that turning retries off does.
		for _, ov := range []struct {
			o   overrides
			src model.Source
		}{{docOv, model.FromDocument}, {pathOv, model.FromPath}, {opOv, model.FromOperation}} {
			if ov.o.off {
				pol.MaxAttempts = 1
				pol.Sources["maxAttempts"] = ov.src
			}
		}
		pol.Reason += "; only attempts that could not connect are retried"
	}
	pol.Retry = pol.Idempotent && pol.MaxAttempts > 1
	if pol.Idempotent && pol.MaxAttempts == 1 {
		pol.Reason += "; retries turned off (maxAttempts 1, from " + string(pol.Sources["maxAttempts"]) + ")"
	}
	if pol.MaxDelay < pol.InitialDelay {
		errs.Add(&Error{
			Pos: s.opPos(opLevel),
			Op:  name,
			Msg: fmt.Sprintf("x-retry.maxDelay (%v, from %s) is shorter than x-retry.initialDelay (%v, from %s)",
				pol.MaxDelay, pol.Sources["maxDelay"], pol.InitialDelay, pol.Sources["initialDelay"]),
			Fix: "raise maxDelay or lower initialDelay",
		})
	}
	return pol
}

func retryOrSpeakeasy(l level) string {
	if _, ok := l.ext[extRetry]; ok {
		return extRetry
	}
	return extSpeakeasy
}

// apply merges one level's overrides into p.
func apply(p *model.Policy, ov overrides, src model.Source) {
	for _, f := range retryFields {
		if !ov.set[f] {
			continue
		}
		p.Sources[f] = src
		switch f {
		case "maxAttempts":
			p.MaxAttempts = ov.p.MaxAttempts
		case "initialDelay":
			p.InitialDelay = ov.p.InitialDelay
		case "maxDelay":
			p.MaxDelay = ov.p.MaxDelay
		case "multiplier":
			p.Multiplier = ov.p.Multiplier
		case "jitter":
			p.Jitter = ov.p.Jitter
		case "statusCodes":
			p.StatusCodes = slices.Clone(ov.p.StatusCodes)
		case "connectionErrors":
			p.ConnectionErrors = ov.p.ConnectionErrors
		case "attemptTimeout":
			p.AttemptTimeout = ov.p.AttemptTimeout
		case "maxElapsed":
			p.MaxElapsed = ov.p.MaxElapsed
		case "retryAfter":
			p.RetryAfter = ov.p.RetryAfter
		case "maxRetryAfter":
			p.MaxRetryAfter = ov.p.MaxRetryAfter
		}
	}
}

// readOverrides parses a level's x-speakeasy-retries and then x-retry, which wins field
// by field on the same level.
func (s *Spec) readOverrides(l level, op string, errs *ErrorList) overrides {
	ov := overrides{set: map[string]bool{}}
	if v, ok := l.ext[extSpeakeasy]; ok {
		ov.seen = true
		s.readSpeakeasy(l, op, v, &ov, errs)
	}
	v, ok := l.ext[extRetry]
	if !ok {
		return ov
	}
	ov.seen = true
	fail := func(pos Pos, field, fix, format string, args ...any) {
		errs.Add(&Error{Pos: pos, Op: op, Pointer: fieldPointer(op, l, field), Msg: fmt.Sprintf(format, args...), Fix: fix})
	}
	switch v := v.(type) {
	case bool:
		if !v {
			ov.off = true
			ov.p.MaxAttempts = 1
			ov.set["maxAttempts"] = true
		}
		return ov
	case map[string]any:
		ov.off = false
		for _, k := range sortedKeys(v) {
			val := v[k]
			pos := s.extPos(l, extRetry, k)
			field := extRetry + "." + k
			var err error
			switch k {
			case "maxAttempts":
				ov.p.MaxAttempts, err = parseAttempts(val)
			case "initialDelay", "maxDelay", "attemptTimeout", "maxElapsed", "maxRetryAfter":
				var d time.Duration
				d, err = parseDuration(val)
				switch k {
				case "initialDelay":
					ov.p.InitialDelay = d
				case "maxDelay":
					ov.p.MaxDelay = d
				case "attemptTimeout":
					ov.p.AttemptTimeout = d
				case "maxElapsed":
					ov.p.MaxElapsed = d
				case "maxRetryAfter":
					ov.p.MaxRetryAfter = d
				}
			case "multiplier":
				ov.p.Multiplier, err = parseMultiplier(val)
			case "jitter":
				ov.p.Jitter, err = parseJitter(val)
			case "statusCodes":
				var bad int
				ov.p.StatusCodes, bad, err = parseStatusCodes(val)
				if err != nil && bad >= 0 {
					pos = s.extPos(l, extRetry, k, strconv.Itoa(bad))
				}
			case "connectionErrors":
				ov.p.ConnectionErrors, err = parseBool(val)
			case "retryAfter":
				ov.p.RetryAfter, err = parseBool(val)
			default:
				fix := "the fields are " + strings.Join(retryFields, ", ")
				if near := closest(k, retryFields); near != "" {
					fix = "did you mean " + near + "?"
				}
				fail(pos, field, fix, "unknown field %s", field)
				continue
			}
			if err != nil {
				fail(pos, field, fixFor(k), "%s %v", field, err)
				continue
			}
			ov.set[k] = true
		}
		return ov
	default:
		fail(s.extPos(l, extRetry), extRetry, "write x-retry as a mapping of fields, or x-retry: false",
			"x-retry must be a mapping or false, got %s", describe(v))
		return ov
	}
}

func pointerIf(op, ptr string) string {
	if op != "" {
		return ""
	}
	return ptr
}

// fieldPointer is the JSON pointer of an extension field ("x-retry.maxAttempts") of a
// level, for errors outside operations.
func fieldPointer(op string, l level, field string) string {
	var b strings.Builder
	b.WriteString(l.pointer)
	for _, part := range strings.Split(field, ".") {
		b.WriteString("/" + escapePointer(part))
	}
	return pointerIf(op, b.String())
}

func fixFor(field string) string {
	switch field {
	case "initialDelay", "maxDelay", "attemptTimeout", "maxElapsed", "maxRetryAfter":
		return `write a Go duration such as "500ms", "10s" or "0s"`
	case "jitter":
		return "use full, equal, decorrelated or none"
	case "statusCodes":
		return `list 4xx or 5xx codes such as 429 or 503, or classes "4XX" or "5XX"`
	case "maxAttempts":
		return fmt.Sprintf("count the first attempt too: 1 means no retries, at most %d", maxMaxAttempts)
	case "multiplier":
		return fmt.Sprintf("use a number from 1 to %d, e.g. 2", maxMultiplier)
	}
	return ""
}

// readSpeakeasy maps x-speakeasy-retries into ov.
func (s *Spec) readSpeakeasy(l level, op string, v any, ov *overrides, errs *ErrorList) {
	fail := func(pos Pos, field, format string, args ...any) {
		errs.Add(&Error{Pos: pos, Op: op, Pointer: fieldPointer(op, l, field), Msg: fmt.Sprintf(format, args...)})
	}
	m, ok := v.(map[string]any)
	if !ok {
		fail(s.extPos(l, extSpeakeasy), extSpeakeasy, "%s must be a mapping, got %s", extSpeakeasy, describe(v))
		return
	}
	ms := func(val any) (time.Duration, error) {
		n, err := parseInt(val)
		if err != nil {
			return 0, err
		}
		if n < 0 {
			return 0, fmt.Errorf("must not be negative, got %d", n)
		}
		if time.Duration(n)*time.Millisecond > maxDuration {
			return 0, fmt.Errorf("must be at most %d (milliseconds), got %d", maxDuration.Milliseconds(), n)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	for _, k := range sortedKeys(m) {
		val := m[k]
		pos := s.extPos(l, extSpeakeasy, k)
		field := extSpeakeasy + "." + k
		switch k {
		case "strategy":
			str, _ := val.(string)
			switch str {
			case "backoff":
			case "none":
				ov.off = true
				ov.p.MaxAttempts = 1
				ov.set["maxAttempts"] = true
			default:
				fail(pos, field, "%s must be backoff or none, got %s", field, describe(val))
			}
		case "statusCodes":
			codes, bad, err := parseStatusCodes(val)
			if err != nil {
				if bad >= 0 {
					pos = s.extPos(l, extSpeakeasy, k, strconv.Itoa(bad))
				}
				fail(pos, field, "%s %v", field, err)
				continue
			}
			ov.p.StatusCodes = codes
			ov.set["statusCodes"] = true
		case "retryConnectionErrors":
			b, err := parseBool(val)
			if err != nil {
				fail(pos, field, "%s %v", field, err)
				continue
			}
			ov.p.ConnectionErrors = b
			ov.set["connectionErrors"] = true
		case "backoff":
			bm, ok := val.(map[string]any)
			if !ok {
				fail(pos, field, "%s must be a mapping, got %s", field, describe(val))
				continue
			}
			for _, bk := range sortedKeys(bm) {
				bv := bm[bk]
				bpos := s.extPos(l, extSpeakeasy, k, bk)
				bfield := field + "." + bk
				var err error
				switch bk {
				case "initialInterval":
					ov.p.InitialDelay, err = ms(bv)
					ov.set["initialDelay"] = err == nil
				case "maxInterval":
					ov.p.MaxDelay, err = ms(bv)
					ov.set["maxDelay"] = err == nil
				case "maxElapsedTime":
					ov.p.MaxElapsed, err = ms(bv)
					ov.set["maxElapsed"] = err == nil
				case "exponent":
					ov.p.Multiplier, err = parseMultiplier(bv)
					ov.set["multiplier"] = err == nil
				default:
					fail(bpos, bfield, "unknown field %s (known: initialInterval, maxInterval, maxElapsedTime, exponent)", bfield)
					continue
				}
				if err != nil {
					fail(bpos, bfield, "%s %v", bfield, err)
				}
			}
		default:
			fail(pos, field, "unknown field %s (known: strategy, backoff, statusCodes, retryConnectionErrors)", field)
		}
	}
}

// idempotencyKey decides the header that carries the operation's idempotency key. The
// most specific setting wins: the operation's x-idempotency-key, then a declared
// Idempotency-Key header parameter, then the path item's and the document's
// x-idempotency-key. The inherited ones apply only to methods that are not idempotent
// by themselves (POST, PATCH and the like). `false` at any level means no key.
func (s *Spec) idempotencyKey(method, name string, item *openapi3.PathItem, op *openapi3.Operation,
	levels []level, errs *ErrorList) (key string, src model.Source, why string) {
	read := func(l level) (string, bool) {
		v, ok := l.ext[extIdempotencyKey]
		if !ok {
			return "", false
		}
		opName := ""
		if l.source == model.FromOperation {
			opName = name
		}
		fail := func(msg string) {
			errs.Add(&Error{
				Pos: s.extPos(l, extIdempotencyKey), Op: opName,
				Pointer: pointerIf(opName, l.pointer+"/"+extIdempotencyKey),
				Msg:     msg,
				Fix:     "write a header name such as Idempotency-Key, or true for Idempotency-Key, or false for none",
			})
		}
		switch v := v.(type) {
		case bool:
			if v {
				return DefaultIdempotencyKey, true
			}
			return "", true
		case string:
			if !validHeaderName(v) {
				fail(fmt.Sprintf("x-idempotency-key must be a header name or a boolean, got %q", v))
				return "", false
			}
			return v, true
		default:
			fail("x-idempotency-key must be a header name or a boolean, got " + describe(v))
			return "", false
		}
	}
	opLevel, pathLevel, docLevel := levels[2], levels[1], levels[0]
	if k, ok := read(opLevel); ok {
		return k, model.FromOperation, "x-idempotency-key on the operation"
	}
	if p := declaredKeyParam(op.Parameters); p != "" {
		return p, model.FromOperation, "declared header parameter"
	}
	if p := declaredKeyParam(item.Parameters); p != "" {
		return p, model.FromPath, "declared header parameter on the path"
	}
	inherits := !isIdempotentMethod(method)
	for _, l := range []level{pathLevel, docLevel} {
		if k, ok := read(l); ok {
			if !inherits {
				return "", model.FromDefault, ""
			}
			return k, l.source, "x-idempotency-key on the " + string(l.source)
		}
	}
	return "", model.FromDefault, ""
}

// isIdempotentMethod reports the methods RFC 9110 makes idempotent.
func isIdempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// declaredKeyParam returns the name of a header parameter called Idempotency-Key (any
// case), or "".
func declaredKeyParam(params openapi3.Parameters) string {
	for _, p := range params {
		if p == nil || p.Value == nil {
			continue
		}
		if p.Value.In == openapi3.ParameterInHeader && strings.EqualFold(p.Value.Name, DefaultIdempotencyKey) {
			return p.Value.Name
		}
	}
	return ""
}

// idempotentFlag reads the operation's x-idempotent.
func (s *Spec) idempotentFlag(l level, name string, errs *ErrorList) (value, set bool) {
	v, ok := l.ext[extIdempotent]
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		errs.Add(&Error{
			Pos: s.extPos(l, extIdempotent), Op: name,
			Msg: "x-idempotent must be true or false, got " + describe(v),
		})
		return false, false
	}
	return b, true
}

// checkIdempotentPlacement rejects x-idempotent above the operation level: whether a
// request may be repeated is a property of one operation.
func (s *Spec) checkIdempotentPlacement(l level, name string, errs *ErrorList) {
	if _, ok := l.ext[extIdempotent]; !ok {
		return
	}
	errs.Add(&Error{
		Pos: s.extPos(l, extIdempotent), Op: name, Pointer: l.pointer + "/" + extIdempotent,
		Msg: fmt.Sprintf("x-idempotent is read on operations only, not on the %s", l.source),
		Fix: "move x-idempotent to each operation it describes",
	})
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// describe renders a decoded YAML/JSON value for a message.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case bool, int, int64, uint64, float64, json.Number:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// parseInt reads an integral number.
func parseInt(v any) (int64, error) {
	switch v := v.(type) {
	case int:
		return int64(v), nil
	case int64:
		return v, nil
	case uint64:
		if v > math.MaxInt64 {
			return 0, fmt.Errorf("is too large: %d", v)
		}
		return int64(v), nil
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) || v > math.MaxInt64 || v < math.MinInt64 {
			return 0, fmt.Errorf("must be an integer, got %v", v)
		}
		return int64(v), nil
	case json.Number:
		return v.Int64()
	}
	return 0, fmt.Errorf("must be an integer, got %s", describe(v))
}

func parseAttempts(v any) (int, error) {
	n, err := parseInt(v)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("must be >= 1, got %d", n)
	}
	if n > maxMaxAttempts {
		return 0, fmt.Errorf("must be <= %d, got %d", maxMaxAttempts, n)
	}
	return int(n), nil
}

func parseDuration(v any) (time.Duration, error) {
	var d time.Duration
	switch v := v.(type) {
	case string:
		var err error
		d, err = time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("must be a Go duration such as \"500ms\", got %q", v)
		}
	default:
		if n, err := parseInt(v); err == nil && n == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("must be a Go duration such as \"500ms\", got %s", describe(v))
	}
	if d < 0 {
		return 0, fmt.Errorf("must not be negative, got %v", d)
	}
	if d > maxDuration {
		return 0, fmt.Errorf("must be at most %v, got %v", maxDuration, d)
	}
	return d, nil
}

func parseMultiplier(v any) (float64, error) {
	var f float64
	switch v := v.(type) {
	case int:
		f = float64(v)
	case int64:
		f = float64(v)
	case uint64:
		f = float64(v)
	case float64:
		f = v
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return 0, fmt.Errorf("must be a number, got %s", v)
		}
	default:
		return 0, fmt.Errorf("must be a number, got %s", describe(v))
	}
	if math.IsNaN(f) || f < 1 || f > maxMultiplier {
		return 0, fmt.Errorf("must be from 1 to %d, got %v", maxMultiplier, f)
	}
	return f, nil
}

func parseJitter(v any) (string, error) {
	s, ok := v.(string)
	switch {
	case !ok:
		return "", fmt.Errorf("must be full, equal, decorrelated or none, got %s", describe(v))
	case s == "full", s == "equal", s == "decorrelated", s == "none":
		return s, nil
	}
	return "", fmt.Errorf("must be full, equal, decorrelated or none, got %q", s)
}

func parseBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("must be true or false, got %s", describe(v))
	}
	return b, nil
}

// parseStatusCodes reads a list of status codes (429) and classes ("5XX"), normalised to
// strings and with duplicates dropped. On error, bad is the index of the offending item,
// or -1 when the value is not a list.
func parseStatusCodes(v any) (codes []string, bad int, err error) {
	list, ok := v.([]any)
	if !ok {
		return nil, -1, fmt.Errorf("must be a list of status codes, got %s", describe(v))
	}
	codes = []string{}
	for i, item := range list {
		var s string
		switch item := item.(type) {
		case string:
			s = strings.ToUpper(strings.TrimSpace(item))
		default:
			n, err := parseInt(item)
			if err != nil {
				return nil, i, fmt.Errorf("item %d must be a status code or class, got %s", i, describe(item))
			}
			s = strconv.FormatInt(n, 10)
		}
		if !validRetryStatus(s) {
			return nil, i, fmt.Errorf("item %d: %q is not a retryable status: use a code from 400 to 599 or a class 4XX or 5XX", i, s)
		}
		if !slices.Contains(codes, s) {
			codes = append(codes, s)
		}
	}
	return codes, -1, nil
}

func validRetryStatus(s string) bool {
	if s == "4XX" || s == "5XX" {
		return true
	}
	if len(s) != 3 {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 400 && n <= 599
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
