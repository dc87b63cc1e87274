package runtime

import (
	"context"
	"net/http/httptrace"
	"reflect"
)

// traceKey is the key under which httptrace keeps a request's *httptrace.ClientTrace in
// its context, or nil. An attempt's context answers it with the attempt's own trace (see
// attemptContext), which spares each attempt the context layer httptrace.WithClientTrace
// would add. httptrace.ContextClientTrace looks the trace up with Context.Value, so the
// key is learned by letting it ask a context that records the question; it is kept only
// when it is comparable and a context that answers it is seen to give the trace back.
// Otherwise attempts use WithClientTrace.
var traceKey = learnTraceKey()

func learnTraceKey() any {
	probe := &keyProbe{Context: context.Background()}
	httptrace.ContextClientTrace(probe)
	if probe.key == nil || !reflect.TypeOf(probe.key).Comparable() {
		return nil
	}
	want := new(httptrace.ClientTrace)
	if httptrace.ContextClientTrace(&keyProbe{Context: context.Background(), key: probe.key, answer: want}) != want {
		return nil
	}
	return probe.key
}

// keyProbe records the first key it is asked for, and answers that key with answer once
// it knows it.
type keyProbe struct {
	context.Context
	key    any
	answer any
}

func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	if p.answer != nil && key == p.key {
		return p.answer
	}
	return p.Context.Value(key)
}
