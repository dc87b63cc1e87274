// Package policy derives each operation's retry policy from the HTTP method and the
// spec's extensions (x-retry, x-speakeasy-retries, x-idempotency-key, x-idempotent), as
// docs/design.md's "Which operations are retried" and "Spec extensions" define it.
//
// It sees no kin-openapi types: the build stage hands it each level's extensions as
// decoded values, with a way to locate them, and gets back a model.Policy. A level is read
// once (Read), and each operation resolved from its three levels (Resolve).
package policy

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// Extension names read from the spec.
const (
	ExtRetry          = "x-retry"
	ExtIdempotencyKey = "x-idempotency-key"
	ExtIdempotent     = "x-idempotent"
	ExtSpeakeasy      = "x-speakeasy-retries"
)

// known are the extensions Read reads.
var known = []string{ExtRetry, ExtIdempotencyKey, ExtIdempotent, ExtSpeakeasy}

// retryLike matches extension names that look like retry settings.
var retryLike = regexp.MustCompile(`(?i)^x-.*(retr|idempot|backoff)`)

// DefaultIdempotencyKey is the header `x-idempotency-key: true` names.
const DefaultIdempotencyKey = "Idempotency-Key"

// Hard limits on x-retry values: beyond them a value is a mistake, not a policy.
const (
	maxMaxAttempts = 100
	maxDuration    = 24 * time.Hour
	maxMultiplier  = 100
)

// Default returns the built-in policy, every source "default": the runtime's defaults,
// so that the generator and the engine cannot disagree on them. Retry and Reason are
// left for the method rules to decide.
func Default() model.Policy {
	rp := runtime.DefaultPolicy()
	p := model.Policy{
		MaxAttempts:      rp.MaxAttempts,
		InitialDelay:     rp.InitialDelay,
		MaxDelay:         rp.MaxDelay,
		Multiplier:       rp.Multiplier,
		Jitter:           rp.Jitter,
		StatusCodes:      rp.StatusCodes,
		ConnectionErrors: rp.ConnectionErrors,
		AttemptTimeout:   rp.AttemptTimeout,
		MaxElapsed:       rp.MaxElapsed,
		RetryAfter:       rp.RetryAfter,
		MaxRetryAfter:    rp.MaxRetryAfter,
		ServerSignals:    !rp.IgnoreServerSignals,
		Sources:          map[string]model.Source{},
		Overlays:         map[string]string{},
	}
	for _, f := range Fields {
		p.Sources[f.Name] = model.FromDefault
	}
	p.Sources[KeyField] = model.FromDefault
	return p
}

// KeyField is the name the idempotency key's source has in model.Policy.Sources.
const KeyField = "idempotencyKey"

// IdempotentField is the name x-idempotent has in model.Policy.Overlays.
const IdempotentField = "idempotent"

// Field is one field of x-retry: how it is parsed, merged and shown.
type Field struct {
	// Name is the field as spelled in x-retry, e.g. "maxAttempts"; it is also its key in
	// model.Policy.Sources and in `retrygen plan -json`.
	Name string
	// Value returns the field's value in p: an int, float64, bool, time.Duration,
	// runtime.Jitter or []runtime.StatusCode.
	Value func(p *model.Policy) any

	parse func(v any) (any, error)     // a decoded spec value → the field's Go value
	set   func(p *model.Policy, v any) // stores a value parse returned
	fix   string                       // the hint for a bad value
}

// newField makes the Field stored at at.
func newField[T any](name string, at func(*model.Policy) *T, parse func(any) (T, error), fix string) Field {
	return Field{
		Name:  name,
		Value: func(p *model.Policy) any { return *at(p) },
		parse: func(v any) (any, error) { return parse(v) },
		set:   func(p *model.Policy, v any) { *at(p) = v.(T) },
		fix:   fix,
	}
}

const durationFix = `write a Go duration such as "500ms", "10s" or "0s"`

// Fields are the fields of x-retry, in the order docs/design.md lists them. This table drives
// parsing, merging, the sources of a policy and the columns of the plan.
var Fields = []Field{
	newField("maxAttempts", func(p *model.Policy) *int { return &p.MaxAttempts }, parseAttempts,
		fmt.Sprintf("count the first attempt too: 1 means no retries, at most %d", maxMaxAttempts)),
	newField("initialDelay", func(p *model.Policy) *time.Duration { return &p.InitialDelay }, parseDuration, durationFix),
	newField("maxDelay", func(p *model.Policy) *time.Duration { return &p.MaxDelay }, parseDuration, durationFix),
	newField("multiplier", func(p *model.Policy) *float64 { return &p.Multiplier }, parseMultiplier,
		fmt.Sprintf("use a number from 1 to %d, e.g. 2", maxMultiplier)),
	newField("jitter", func(p *model.Policy) *runtime.Jitter { return &p.Jitter }, parseJitter,
		"use full, equal, decorrelated or none"),
	newField("statusCodes", func(p *model.Policy) *[]runtime.StatusCode { return &p.StatusCodes }, parseStatusCodes,
		`list 4xx or 5xx codes such as 429 or 503, or classes "4XX" or "5XX"`),
	newField("connectionErrors", func(p *model.Policy) *bool { return &p.ConnectionErrors }, parseBool, ""),
	newField("attemptTimeout", func(p *model.Policy) *time.Duration { return &p.AttemptTimeout }, parseDuration, durationFix),
	newField("maxElapsed", func(p *model.Policy) *time.Duration { return &p.MaxElapsed }, parseDuration, durationFix),
	newField("retryAfter", func(p *model.Policy) *bool { return &p.RetryAfter }, parseBool, ""),
	newField("maxRetryAfter", func(p *model.Policy) *time.Duration { return &p.MaxRetryAfter }, parseDuration, durationFix),
	newField("serverSignals", func(p *model.Policy) *bool { return &p.ServerSignals }, parseBool, ""),
}

// field returns the Field called name.
func field(name string) Field {
	i := slices.IndexFunc(Fields, func(f Field) bool { return f.Name == name })
	return Fields[i]
}

// fieldNames lists the names of Fields.
func fieldNames() []string {
	names := make([]string, len(Fields))
	for i, f := range Fields {
		names[i] = f.Name
	}
	return names
}

// Level is one place the extensions are read from: the document, a path item or an
// operation.
type Level struct {
	Source model.Source   // FromDocument, FromPath or FromOperation
	Ext    map[string]any // the object's extensions, decoded
	// Pointer is the JSON pointer of the object, e.g. "#/paths/~1pets/get".
	Pointer string
	// Locate returns the position of the extension ext of the object, or of the place
	// the keys and list indexes of inside lead to within its value.
	Locate func(ext string, inside ...string) source.Pos
	// Overlays are the overlay files applied to the spec, as the user named them: a
	// value Locate finds in one of them was put there by that overlay.
	Overlays []string
}

// Settings is what one level says, read once: the fields its x-retry (and
// x-speakeasy-retries) sets, its idempotency key and its x-idempotent.
type Settings struct {
	level Level
	set   []Field      // the fields set, in table order
	p     model.Policy // their values
	off   bool         // x-retry: false, or Speakeasy strategy none
	seen  bool         // an x-retry or x-speakeasy-retries is present

	key           string // the header, or the body property with keyInBody; "" for none
	keyInBody     bool   // x-idempotency-key: {in: body, name: ...}
	keySet        bool   // x-idempotency-key is present and valid
	idem, idemSet bool   // x-idempotent, and whether it is present and valid

	// overlay holds, for each value an overlay put there (a field name, KeyField or
	// IdempotentField), where: "keys.yaml:9:7".
	overlay map[string]string
	// speakeasy gathers the operations this level's x-speakeasy-retries asks to retry
	// and retrygen does not; nil when the level has none that asks for retries.
	// speakeasySet says the level has an x-speakeasy-retries at all.
	speakeasy    *speakeasyGroup
	speakeasySet bool
}

// fromOverlay records where the value named field came from, when Locate finds the
// place at (an extension, then the keys inside it) in an overlay.
func (s *Settings) fromOverlay(field string, at ...string) {
	if len(s.level.Overlays) == 0 {
		return
	}
	pos := s.level.Locate(at[0], at[1:]...)
	if !slices.Contains(s.level.Overlays, pos.File) {
		delete(s.overlay, field)
		return
	}
	if s.overlay == nil {
		s.overlay = map[string]string{}
	}
	s.overlay[field] = pos.String()
}

// Read parses the retry extensions of one level and reports every malformed value in
// errs, and extensions that look like retry settings but are not read (x-retry-strategy,
// say) in warns. op names the operation in messages, "" above operations.
func Read(l Level, op string, errs, warns *source.ErrorList) Settings {
	warnUnread(l, op, warns)
	s := Settings{level: l}
	r := reader{l: l, op: op, errs: errs}
	speakeasyAsks := false // x-speakeasy-retries is well formed and not strategy: none
	if v, ok := l.Ext[ExtSpeakeasy]; ok {
		s.seen, s.speakeasySet = true, true
		before := len(*errs)
		r.speakeasy(v, s.setField, s.turnOff)
		speakeasyAsks = len(*errs) == before && !s.off
	}
	if v, ok := l.Ext[ExtRetry]; ok {
		s.seen = true
		s.readRetry(r, v)
	}
	if speakeasyAsks && !s.off {
		s.speakeasy = &speakeasyGroup{level: l, op: op, warns: warns}
	}
	s.readIdempotence(r)
	return s
}

// warnUnread warns of each extension of l that looks like a retry setting but is not one
// Read reads, suggesting the closest that is.
func warnUnread(l Level, op string, warns *source.ErrorList) {
	for _, k := range source.SortedKeys(l.Ext) {
		if !retryLike.MatchString(k) || slices.Contains(known, k) {
			continue
		}
		w := &source.Error{Pos: l.Locate(k), Op: op,
			Msg: fmt.Sprintf("%s is not read: retrygen reads x-retry, x-idempotency-key, x-idempotent and x-speakeasy-retries", k),
			Fix: "write the policy as x-retry (see docs/design.md, \"Spec extensions\")"}
		if op == "" {
			w.Pointer = l.Pointer + "/" + source.EscapePointer(k)
		}
		if near := source.Closest(k, known); near != "" {
			w.Fix = "did you mean " + near + "?"
		}
		warns.Add(w)
	}
}

// setField sets the field f to v, read at the extension path at.
func (s *Settings) setField(f Field, v any, at ...string) {
	f.set(&s.p, v)
	if !slices.ContainsFunc(s.set, func(g Field) bool { return g.Name == f.Name }) {
		s.set = append(s.set, f)
	}
	s.fromOverlay(f.Name, at...)
}

// turnOff turns retries off (maxAttempts 1), as said at the extension path at.
func (s *Settings) turnOff(at ...string) {
	s.off = true
	s.setField(field("maxAttempts"), 1, at...)
}

// readRetry reads v, the level's x-retry: false turns retries off, a mapping sets each
// of its fields; r reports an unknown field or a bad value.
func (s *Settings) readRetry(r reader, v any) {
	switch v := v.(type) {
	case bool:
		if !v {
			s.turnOff(ExtRetry)
		}
	case map[string]any:
		s.off = false
		for _, k := range source.SortedKeys(v) {
			name := ExtRetry + "." + k
			i := slices.IndexFunc(Fields, func(f Field) bool { return f.Name == k })
			if i < 0 {
				fix := "the fields are " + strings.Join(fieldNames(), ", ")
				if near := source.Closest(k, fieldNames()); near != "" {
					fix = "did you mean " + near + "?"
				}
				r.fail(r.at(ExtRetry, k), name, fix, "unknown field %s", name)
				continue
			}
			f := Fields[i]
			val, err := f.parse(v[k])
			if err != nil {
				r.failValue(r.at(ExtRetry, k), []string{ExtRetry, k}, name, f.fix, err)
				continue
			}
			s.setField(f, val, ExtRetry, k)
		}
	default:
		r.fail(r.at(ExtRetry), ExtRetry, "write x-retry as a mapping of fields, or x-retry: false",
			"x-retry must be a mapping or false, got %s", source.Describe(v))
	}
}

// readIdempotence reads the level's x-idempotency-key and, on an operation, its
// x-idempotent, which r reports on any other level.
func (s *Settings) readIdempotence(r reader) {
	s.key, s.keyInBody, s.keySet = r.idempotencyKey()
	if s.keySet {
		s.fromOverlay(KeyField, ExtIdempotencyKey)
	}
	l := r.l
	if l.Source == model.FromOperation {
		if s.idem, s.idemSet = r.idempotent(); s.idemSet {
			s.fromOverlay(IdempotentField, ExtIdempotent)
		}
	} else if _, ok := l.Ext[ExtIdempotent]; ok {
		r.errs.Add(&source.Error{
			Pos: l.Locate(ExtIdempotent), Pointer: l.Pointer + "/" + ExtIdempotent,
			Msg: fmt.Sprintf("x-idempotent is read on operations only, not on the %s", l.Source),
			Fix: "move x-idempotent to each operation it describes",
		})
	}
}

// signalsField is the x-retry field that says whether the server's word is followed.
const signalsField = "serverSignals"

// signalsOnly reports whether the level's x-retry sets serverSignals and nothing else,
// the one x-retry an operation that may not be retried may have: the server's word is
// what may make it retried.
func (s Settings) signalsOnly() bool {
	_, speakeasy := s.level.Ext[ExtSpeakeasy]
	return !speakeasy && len(s.set) == 1 && s.set[0].Name == signalsField
}

// Operation is what Resolve needs to know of an operation besides its levels.
type Operation struct {
	Method string     // e.g. "POST"
	Name   string     // for messages, e.g. "POST /orders (createOrder)"
	Pos    source.Pos // the operation's place
	// KeyHeader and PathKeyHeader are the names of a header parameter called
	// Idempotency-Key (any case) that the operation, or its path item, declares; "" when
	// none.
	KeyHeader, PathKeyHeader string
}

// Resolve applies the rules of docs/design.md to one operation, given what its document, path
// item and the operation itself say.
func Resolve(op Operation, doc, path, own Settings, errs *source.ErrorList) model.Policy {
	pol := Default()
	key, keyFrom, keySource, keyWhy := idempotencyKey(op, doc, path, own)
	pol.IdempotencyKey = key
	pol.KeyInBody = keyFrom != nil && keyFrom.keyInBody && key != ""
	pol.Sources[KeyField] = keySource
	if keyFrom != nil {
		keyFrom.placeTo(&pol, KeyField)
	}
	own.placeTo(&pol, IdempotentField)
	pol.Idempotent, pol.Reason = idempotence(op.Method, keyPlace(key, pol.KeyInBody), keyWhy, own)
	if pol.Idempotent {
		for _, s := range []Settings{doc, path, own} {
			s.applyTo(&pol)
		}
	} else {
		notRetrySafe(&pol, op, doc, path, own, errs)
	}
	pol.StatusCodes = slices.Clone(pol.StatusCodes)
	pol.Retry = pol.Idempotent && pol.MaxAttempts > 1
	if pol.Idempotent && pol.MaxAttempts == 1 {
		pol.Reason += "; retries turned off (maxAttempts 1, from " + string(pol.Sources["maxAttempts"]) + ")"
	}
	if pol.MaxDelay < pol.InitialDelay {
		errs.Add(&source.Error{
			Pos: op.Pos,
			Op:  op.Name,
			Msg: fmt.Sprintf("x-retry.maxDelay (%v, from %s) is shorter than x-retry.initialDelay (%v, from %s)",
				pol.MaxDelay, pol.Sources["maxDelay"], pol.InitialDelay, pol.Sources["initialDelay"]),
			Fix: "raise maxDelay or lower initialDelay",
		})
	}
	return pol
}

// keyPlace says where an idempotency key goes, for a reason: `"Idempotency-Key"`, or
// `the body property "IdempotencyKey"`; "" for no key.
func keyPlace(key string, inBody bool) string {
	switch {
	case key == "":
		return ""
	case inBody:
		return "the body property " + strconv.Quote(key)
	}
	return strconv.Quote(key)
}

// idempotence decides whether an operation may be repeated once its request may have
// reached the server (RFC 9110 §9.2.2), and says why: its method, the idempotency key it
// sends (in key, a header or a body property as keyPlace writes it, as keyWhy says), or
// its own x-idempotent.
func idempotence(method, key, keyWhy string, own Settings) (bool, string) {
	idem, why := false, method+" is not idempotent and has no idempotency key (RFC 9110 §9.2.2)"
	switch {
	case method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions || method == http.MethodTrace:
		idem, why = true, method+" is safe (RFC 9110 §9.2.1)"
	case method == http.MethodPut || method == http.MethodDelete:
		if own.idemSet && !own.idem {
			why = method + " opted out with x-idempotent: false"
		} else {
			idem, why = true, method+" is idempotent (RFC 9110 §9.2.2)"
		}
	case key != "":
		idem, why = true, fmt.Sprintf("%s sends an idempotency key in %s (%s)", method, key, keyWhy)
	case own.idemSet && own.idem:
		idem, why = true, method+" is declared idempotent (x-idempotent: true)"
	}
	if key != "" && !idem {
		// PUT or DELETE with x-idempotent: false still sends its key; it is just not retried.
		why += "; the idempotency key is still sent"
	}
	return idem, why
}

// notRetrySafe completes the policy of an operation that may not be repeated: its own
// x-retry is an error (unless it turns retries off or sets serverSignals alone), a
// Speakeasy setting that asks to retry it is noted, and the document's and path's x-retry
// shape the retries it still makes (attempts that could not connect) and those of a call
// the caller makes retry-safe (WithIdempotencyKey, WithIdempotent).
func notRetrySafe(pol *model.Policy, op Operation, doc, path, own Settings, errs *source.ErrorList) {
	_, retry := own.level.Ext[ExtRetry]
	if retry && !own.off && !own.signalsOnly() {
		fix := "add x-idempotency-key: true (if the server deduplicates requests by an Idempotency-Key header) " +
			"or x-idempotent: true (if repeating the request is harmless), or remove x-retry"
		if isIdempotentMethod(op.Method) {
			fix = "remove x-idempotent: false, or remove x-retry"
		}
		errs.Add(&source.Error{
			Pos: own.level.Locate(ExtRetry),
			Op:  op.Name,
			Msg: fmt.Sprintf("%s on an operation that may not be retried: %s", ExtRetry, pol.Reason),
			Fix: fix + " (x-retry with serverSignals alone may stay)",
		})
	} else {
		speakeasyAsks(op, pol.Reason, own, path, doc)
	}
	doc.applyTo(pol)
	path.applyTo(pol)
	// The operation's own serverSignals applies: it says whether the server's word may
	// make the operation retried.
	if own.signalsOnly() {
		pol.ServerSignals = own.p.ServerSignals
		pol.Sources[signalsField] = model.FromOperation
		own.placeTo(pol, signalsField)
	}
	if own.off {
		pol.MaxAttempts = 1
		pol.Sources["maxAttempts"] = model.FromOperation
		own.placeTo(pol, "maxAttempts")
	}
	if pol.ServerSignals && pol.MaxAttempts > 1 {
		pol.Reason += OnlyUnsentOrSignalled
	} else {
		pol.Reason += OnlyUnsent
	}
}

// The endings of the Reason of an operation that is not retry-safe: which of its attempts
// are retried all the same.
const (
	OnlyUnsent            = "; only attempts that could not connect are retried"
	OnlyUnsentOrSignalled = "; only attempts that could not connect, and answers the server says to retry, are retried"
)

// applyTo sets in pol the fields this level sets, and says where they came from.
func (s Settings) applyTo(pol *model.Policy) {
	for _, f := range s.set {
		f.set(pol, f.Value(&s.p))
		pol.Sources[f.Name] = s.level.Source
		s.placeTo(pol, f.Name)
	}
}

// placeTo records in pol where an overlay put the value named field of this level, or
// that no overlay did.
func (s Settings) placeTo(pol *model.Policy, field string) {
	if at, ok := s.overlay[field]; ok {
		pol.Overlays[field] = at
	} else {
		delete(pol.Overlays, field)
	}
}

// idempotencyKey decides the header that carries the operation's idempotency key, and the
// level whose x-idempotency-key set it (nil for a declared header parameter, or none). The
// most specific setting wins: the operation's x-idempotency-key, then a declared
// Idempotency-Key header parameter, then the path item's and the document's
// x-idempotency-key. The inherited ones apply only to methods that are not idempotent
// by themselves (POST, PATCH and the like). `false` at any level means no key.
func idempotencyKey(op Operation, doc, path, own Settings) (key string, from *Settings, src model.Source, why string) {
	if own.keySet {
		return own.key, &own, model.FromOperation, "x-idempotency-key on the operation"
	}
	if op.KeyHeader != "" {
		return op.KeyHeader, nil, model.FromOperation, "declared header parameter"
	}
	if op.PathKeyHeader != "" {
		return op.PathKeyHeader, nil, model.FromPath, "declared header parameter on the path"
	}
	for _, s := range []Settings{path, doc} {
		if !s.keySet {
			continue
		}
		if isIdempotentMethod(op.Method) {
			return "", nil, model.FromDefault, ""
		}
		return s.key, &s, s.level.Source, "x-idempotency-key on the " + string(s.level.Source)
	}
	return "", nil, model.FromDefault, ""
}

// isIdempotentMethod reports the methods RFC 9110 makes idempotent.
func isIdempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// reader reads the extensions of one level and reports what is wrong with them.
type reader struct {
	l    Level
	op   string
	errs *source.ErrorList
}

// at locates an extension of the level, or a place inside its value.
func (r reader) at(ext string, inside ...string) source.Pos {
	return r.l.Locate(ext, inside...)
}

// failValue reports a bad value of the field `field`, found at pos by the path inside
// (the extension, then its keys): once, or once per bad item of a list, each at the item.
func (r reader) failValue(pos source.Pos, inside []string, field, fix string, err error) {
	var items itemErrors
	if !errors.As(err, &items) {
		r.fail(pos, field, fix, "%s %v", field, err)
		return
	}
	for _, ie := range items {
		path := append(slices.Clone(inside[1:]), strconv.Itoa(ie.index))
		r.fail(r.at(inside[0], path...), field, fix, "%s %v", field, ie)
	}
}

// fail reports a problem with the extension field `field` ("x-retry.maxAttempts"). Above
// operations the message names the field's JSON pointer.
func (r reader) fail(pos source.Pos, field, fix, format string, args ...any) {
	e := &source.Error{Pos: pos, Op: r.op, Msg: fmt.Sprintf(format, args...), Fix: fix}
	if r.op == "" {
		var b strings.Builder
		b.WriteString(r.l.Pointer)
		for _, part := range strings.Split(field, ".") {
			b.WriteString("/" + source.EscapePointer(part))
		}
		e.Pointer = b.String()
	}
	r.errs.Add(e)
}

// speakeasy maps x-speakeasy-retries to x-retry fields.
func (r reader) speakeasy(v any, set func(Field, any, ...string), turnOff func(...string)) {
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(r.at(ExtSpeakeasy), ExtSpeakeasy, "", "%s must be a mapping, got %s", ExtSpeakeasy, source.Describe(v))
		return
	}
	for _, k := range source.SortedKeys(m) {
		val := m[k]
		name := ExtSpeakeasy + "." + k
		use := func(f Field, parse func(any) (any, error), inside []string, name string, val any) {
			x, err := parse(val)
			if err != nil {
				r.failValue(r.at(inside[0], inside[1:]...), inside, name, "", err)
				return
			}
			set(f, x, inside...)
		}
		switch k {
		case "strategy":
			switch val {
			case "backoff":
			case "none":
				turnOff(ExtSpeakeasy, k)
			default:
				r.fail(r.at(ExtSpeakeasy, k), name, "", "%s must be backoff or none, got %s", name, source.Describe(val))
			}
		case "statusCodes":
			use(field("statusCodes"), field("statusCodes").parse, []string{ExtSpeakeasy, k}, name, val)
		case "retryConnectionErrors":
			use(field("connectionErrors"), field("connectionErrors").parse, []string{ExtSpeakeasy, k}, name, val)
		case "backoff":
			bm, ok := val.(map[string]any)
			if !ok {
				r.fail(r.at(ExtSpeakeasy, k), name, "", "%s must be a mapping, got %s", name, source.Describe(val))
				continue
			}
			for _, bk := range source.SortedKeys(bm) {
				bname := name + "." + bk
				b, ok := speakeasyBackoff[bk]
				if !ok {
					r.fail(r.at(ExtSpeakeasy, k, bk), bname, "",
						"unknown field %s (known: initialInterval, maxInterval, maxElapsedTime, exponent)", bname)
					continue
				}
				parse := field(b.field).parse
				if b.millis {
					parse = millis
				}
				use(field(b.field), parse, []string{ExtSpeakeasy, k, bk}, bname, bm[bk])
			}
		default:
			r.fail(r.at(ExtSpeakeasy, k), name, "", "unknown field %s (known: strategy, backoff, statusCodes, retryConnectionErrors)", name)
		}
	}
}

// speakeasyBackoff maps the fields of x-speakeasy-retries.backoff to x-retry fields.
var speakeasyBackoff = map[string]struct {
	field  string // the x-retry field it sets
	millis bool   // a duration in milliseconds, rather than as the x-retry field reads it
}{
	"initialInterval": {"initialDelay", true},
	"maxInterval":     {"maxDelay", true},
	"maxElapsedTime":  {"maxElapsed", true},
	"exponent":        {"multiplier", false},
}

// millis reads a Speakeasy interval in milliseconds.
func millis(v any) (any, error) {
	n, err := parseInt(v)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("must not be negative, got %d", n)
	}
	if time.Duration(n)*time.Millisecond > maxDuration {
		return nil, fmt.Errorf("must be at most %d (milliseconds), got %d", maxDuration.Milliseconds(), n)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// idempotencyKey reads the level's x-idempotency-key: the header name, or with inBody
// the body property's, and whether the level sets it (false sets "no key").
func (r reader) idempotencyKey() (name string, inBody, set bool) {
	v, ok := r.l.Ext[ExtIdempotencyKey]
	if !ok {
		return "", false, false
	}
	fail := func(msg string, inside ...string) {
		e := &source.Error{
			Pos: r.at(ExtIdempotencyKey, inside...), Op: r.op, Msg: msg,
			Fix: "write a header name such as Idempotency-Key, true for Idempotency-Key, false for none, " +
				"or {in: body, name: IdempotencyKey} for a property of a form or JSON request body",
		}
		if r.op == "" {
			e.Pointer = r.l.Pointer + "/" + ExtIdempotencyKey
		}
		r.errs.Add(e)
	}
	switch v := v.(type) {
	case bool:
		if v {
			return DefaultIdempotencyKey, false, true
		}
		return "", false, true
	case string:
		if !ValidHeaderName(v) {
			fail(fmt.Sprintf("x-idempotency-key must be a header name or a boolean, got %q", v))
			return "", false, false
		}
		return v, false, true
	case map[string]any:
		return r.keyObject(v, fail)
	}
	fail("x-idempotency-key must be a header name, a boolean or {in: body, name: ...}, got " + source.Describe(v))
	return "", false, false
}

// keyObject reads x-idempotency-key written as an object: {in: body, name: NAME} names a
// property of the request body, {in: header, name: NAME} a header.
func (r reader) keyObject(m map[string]any, fail func(msg string, inside ...string)) (name string, inBody, set bool) {
	for _, k := range source.SortedKeys(m) {
		if k != "in" && k != "name" {
			fail(fmt.Sprintf("x-idempotency-key: unknown field %q: it has in and name", k), k)
			return "", false, false
		}
	}
	name, _ = m["name"].(string)
	switch in, _ := m["in"].(string); in {
	case "body":
		if strings.TrimSpace(name) == "" {
			fail("x-idempotency-key.name must name the body property that carries the key, got "+source.Describe(m["name"]), "name")
			return "", false, false
		}
		return name, true, true
	case "header":
		if !ValidHeaderName(name) {
			fail("x-idempotency-key.name must be a header name, got "+source.Describe(m["name"]), "name")
			return "", false, false
		}
		return name, false, true
	}
	fail("x-idempotency-key.in must be body or header, got "+source.Describe(m["in"]), "in")
	return "", false, false
}

// idempotent reads the operation's x-idempotent.
func (r reader) idempotent() (value, set bool) {
	v, ok := r.l.Ext[ExtIdempotent]
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		r.errs.Add(&source.Error{
			Pos: r.at(ExtIdempotent), Op: r.op,
			Msg: "x-idempotent must be true or false, got " + source.Describe(v),
		})
		return false, false
	}
	return b, true
}

// maxHeaderName bounds the header names a spec may give: longer ones are refused.
const maxHeaderName = 256

// ValidHeaderName reports whether s is a header name a spec may give: an RFC 9110 token
// (runtime.ValidHeaderName) of at most maxHeaderName bytes.
func ValidHeaderName(s string) bool {
	return len(s) <= maxHeaderName && runtime.ValidHeaderName(s)
}

// parseInt reads an integral number.
func parseInt(v any) (int64, error) {
	if n, ok := source.Int(v); ok {
		return n, nil
	}
	if f, ok := v.(float64); ok && f == math.Trunc(f) {
		return 0, fmt.Errorf("is too large: %v", f)
	}
	if u, ok := v.(uint64); ok {
		return 0, fmt.Errorf("is too large: %d", u)
	}
	return 0, fmt.Errorf("must be an integer, got %s", source.Describe(v))
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
	s, ok := v.(string)
	if !ok {
		if n, ok := source.Int(v); ok && n == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("must be a Go duration such as \"500ms\", got %s", source.Describe(v))
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, fmt.Errorf("must be a Go duration such as \"500ms\", got %q", s)
	case d < 0:
		return 0, fmt.Errorf("must not be negative, got %v", d)
	case d > maxDuration:
		return 0, fmt.Errorf("must be at most %v, got %v", maxDuration, d)
	}
	return d, nil
}

func parseMultiplier(v any) (float64, error) {
	f, ok := source.Float(v)
	if !ok {
		return 0, fmt.Errorf("must be a number, got %s", source.Describe(v))
	}
	if math.IsNaN(f) || f < 1 || f > maxMultiplier {
		return 0, fmt.Errorf("must be from 1 to %d, got %v", maxMultiplier, f)
	}
	return f, nil
}

func parseJitter(v any) (runtime.Jitter, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("must be full, equal, decorrelated or none, got %s", source.Describe(v))
	}
	switch j := runtime.Jitter(s); j {
	case runtime.JitterFull, runtime.JitterEqual, runtime.JitterDecorrelated, runtime.JitterNone:
		return j, nil
	}
	return "", fmt.Errorf("must be full, equal, decorrelated or none, got %q", s)
}

func parseBool(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("must be true or false, got %s", source.Describe(v))
	}
	return b, nil
}

// itemError is a problem with one item of a list.
type itemError struct {
	index int // from 0, as in the list
	msg   string
}

func (e *itemError) Error() string { return e.msg }

// itemErrors are the problems with the items of one list, in order.
type itemErrors []*itemError

func (l itemErrors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.msg
	}
	return strings.Join(msgs, "; ")
}

// parseStatusCodes reads a list of status codes (429) and classes ("5XX", as
// runtime.Class5XX), with duplicates dropped. Bad items come back as itemErrors, every one
// of them, numbered from 1 as a reader counts.
func parseStatusCodes(v any) ([]runtime.StatusCode, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be a list of status codes, got %s", source.Describe(v))
	}
	codes := []runtime.StatusCode{}
	var bad itemErrors
	for i, item := range list {
		var s string
		switch item := item.(type) {
		case string:
			s = strings.ToUpper(strings.TrimSpace(item))
		default:
			n, err := parseInt(item)
			if err != nil {
				bad = append(bad, &itemError{i, fmt.Sprintf("item %d must be a status code or class, got %s", i+1, source.Describe(item))})
				continue
			}
			s = strconv.FormatInt(n, 10)
		}
		c, ok := retryStatus(s)
		if !ok {
			bad = append(bad, &itemError{i, fmt.Sprintf("item %d: %s is not a retryable status: use a code from 400 to 599 or a class 4XX or 5XX", i+1, strconv.Quote(fmt.Sprint(item)))})
			continue
		}
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	if bad != nil {
		return nil, bad
	}
	return codes, nil
}

// retryStatus reads s, a code from 400 to 599 or a class 4XX or 5XX, and reports whether
// it is one.
func retryStatus(s string) (runtime.StatusCode, bool) {
	switch s {
	case "4XX":
		return runtime.Class4XX, true
	case "5XX":
		return runtime.Class5XX, true
	}
	if len(s) != 3 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 400 || n > 599 {
		return 0, false
	}
	return runtime.StatusCode(n), true
}
