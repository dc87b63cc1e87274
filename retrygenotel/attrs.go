package retrygenotel

import (
	"sync"
	"weak"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/retrygen/retrygen/runtime"
)

// opKey is what the attributes of a call depend on: its operation, its server and how it
// may be retried.
type opKey struct {
	id, method, template, server string
	class                        runtime.RetryClass
	keySent                      bool
	kind                         runtime.CallKind
}

// opAttrs are the span names, span options and metric attribute sets that the calls of
// one operation share, made once, so that a call takes few allocations of its own.
type opAttrs struct {
	kind         runtime.CallKind
	callName     string // "getPet"
	attemptName  string // "GET /pets/{petId}"
	base         []attribute.KeyValue
	server       attribute.Set
	callStart    []trace.SpanStartOption
	attemptStart []trace.SpanStartOption

	// budget and breaker are the ones the gauges were last told of for these calls.
	budget  weak.Pointer[runtime.Budget]
	breaker weak.Pointer[runtime.Breaker]

	mu   sync.Mutex
	sets map[setKey]*measurement
}

// Bounds of the caches, for a program that makes calls of unbounded variety (a status
// code per request, an operation per path): past them the options are made per call.
const (
	maxOps  = 1024
	maxSets = 256
)

// opOf returns the shared attributes of the calls info describes.
func (o *observer) opOf(info *runtime.CallInfo) *opAttrs {
	k := opKey{info.OperationID, info.Method, info.URLTemplate, info.Server, info.RetryClass, info.KeySent, info.Kind}
	o.opsMu.RLock()
	op := o.ops[k]
	o.opsMu.RUnlock()
	if op != nil {
		return op
	}
	op = newOpAttrs(k)
	o.opsMu.Lock()
	defer o.opsMu.Unlock()
	if have := o.ops[k]; have != nil {
		return have
	}
	if len(o.ops) < maxOps {
		o.ops[k] = op
	}
	return op
}

var (
	internal = trace.WithSpanKind(trace.SpanKindInternal)
	client   = trace.WithSpanKind(trace.SpanKindClient)
)

func newOpAttrs(k opKey) *opAttrs {
	op := &opAttrs{kind: k.kind, attemptName: k.method, sets: map[setKey]*measurement{}}
	if k.template != "" {
		op.attemptName += " " + k.template
	}
	op.callName = k.id
	if op.callName == "" {
		op.callName = op.attemptName
	}
	server := serverAttrs(k.server)
	op.server = attribute.NewSet(server...)
	op.base = append(op.base, keyMethod.String(k.method))
	if k.id != "" {
		op.base = append(op.base, keyOperation.String(k.id))
	}
	if k.template != "" {
		op.base = append(op.base, keyTemplate.String(k.template))
	}
	op.base = append(op.base, server...)
	call := append(op.base[:len(op.base):len(op.base)], keyRetryClass.String(string(k.class)), keyKeySent.Bool(k.keySent))
	if k.kind != runtime.KindRequest {
		call = append(call, keyKind.String(k.kind.String()))
	}
	op.callStart = []trace.SpanStartOption{internal, trace.WithAttributes(call...)}
	op.attemptStart = []trace.SpanStartOption{client, trace.WithAttributes(op.base...)}
	return op
}

// setKey says which metric attributes, beyond the operation's, a measurement carries.
type setKey struct {
	what    uint8 // forAttempt, forWait or forCall
	status  int
	errType string
	cause   runtime.WaitCause
	stop    runtime.StopReason
}

const (
	forAttempt = iota
	forWait
	forCall
)

// measurement is the options that record a measurement with one attribute set.
type measurement struct {
	record []metric.RecordOption
	add    []metric.AddOption
}

// measure returns the options of a measurement of the operation with k's attributes.
func (op *opAttrs) measure(k setKey) *measurement {
	op.mu.Lock()
	defer op.mu.Unlock()
	if m := op.sets[k]; m != nil {
		return m
	}
	attrs := append(op.base[:len(op.base):len(op.base)], k.attrs()...)
	opt := metric.WithAttributeSet(attribute.NewSet(attrs...))
	m := &measurement{record: []metric.RecordOption{opt}, add: []metric.AddOption{opt}}
	if len(op.sets) < maxSets {
		op.sets[k] = m
	}
	return m
}

func (k setKey) attrs() []attribute.KeyValue {
	switch k.what {
	case forAttempt:
		var out []attribute.KeyValue
		if k.status != 0 {
			out = append(out, keyStatus.Int(k.status))
		}
		if k.errType != "" {
			out = append(out, keyErrorType.String(k.errType))
		}
		return out
	case forWait:
		return []attribute.KeyValue{keyCause.String(string(k.cause))}
	}
	return []attribute.KeyValue{keyStop.String(string(k.stop))}
}
