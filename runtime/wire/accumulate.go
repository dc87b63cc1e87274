package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/retrygen/retrygen/runtime"
)

// Shapes of stream whose events are deltas of the operation's JSON response, for
// StreamConfig.Accumulate.
const (
	// AccumulateOpenAI: chat completion chunks whose choices carry deltas of the
	// response's messages (OpenAI, and the APIs that copy its chat completions).
	AccumulateOpenAI = "openai"
	// AccumulateAnthropic: message_start, content_block_start, content_block_delta,
	// content_block_stop and message_delta events (Anthropic's Messages).
	AccumulateAnthropic = "anthropic"
)

// Bounds on what an accumulator builds, against a server that sends indexes to make it
// allocate: the choices of a chat completion, tool calls one chunk may add, content
// blocks of a message.
const (
	maxChoices        = 128
	maxToolCallGrowth = 128
	maxContentBlocks  = 4096
)

// accumulator adds up the data of a stream's events into the response they are deltas
// of.
type accumulator interface {
	add(data []byte) error
	// response returns the response so far, as JSON.
	response() ([]byte, error)
}

func newAccumulator(shape string) accumulator {
	switch shape {
	case AccumulateOpenAI:
		return &chatAccumulator{top: map[string]any{}}
	case AccumulateAnthropic:
		return &messageAccumulator{}
	}
	return nil
}

// Accumulate reads the rest of the stream, then decodes into v the response its events
// add up to, those Next already returned included: the JSON response the operation gives
// when asked for it whole. It returns the stream's error when the stream did not end
// normally, and an error wrapping runtime.ErrBodyTooLarge when its events hold more data
// than the client decodes of a response (see runtime.Engine.MaxBodySize).
func (s *Stream[T]) Accumulate(v any) error {
	if s.acc == nil {
		return errors.New("the operation's events are not deltas of its response")
	}
	for s.Next() {
	}
	if s.err != nil {
		return s.err
	}
	if s.accErr != nil {
		return s.accErr
	}
	data, err := s.acc.response()
	if err != nil {
		return fmt.Errorf("%s %s: accumulating the events: %w", s.req.method, s.req.path.String(), err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s %s: the events' response: %w", s.req.method, s.req.path.String(), err)
	}
	return nil
}

// accumulate adds the data of an event delivered to the stream's response, once the
// stream accumulates; a failure is kept for Accumulate, which reports it.
func (s *Stream[T]) accumulate(data []byte) {
	if s.acc == nil || s.accErr != nil {
		return
	}
	s.accSize += int64(len(data))
	limit := s.client.engine.MaxBodySize
	if limit == 0 {
		limit = runtime.DefaultMaxBodySize
	}
	if limit > 0 && s.accSize > limit {
		s.accErr = fmt.Errorf("%s %s: %w: the events hold more than the %d bytes a response may", s.req.method, s.req.path.String(),
			runtime.ErrBodyTooLarge, limit)
		return
	}
	if err := s.acc.add(data); err != nil {
		s.accErr = fmt.Errorf("%s %s: event %d: %w", s.req.method, s.req.path.String(), s.delivered, err)
	}
}

// decodeObject decodes data, a JSON object, keeping numbers as written.
func decodeObject(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("event is not a JSON object")
	}
	return m, nil
}

// index reads a JSON number that indexes a list: a non-negative integer below bound.
func index(v any, bound int) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("index %v is not a number", v)
	}
	i, err := n.Int64()
	if err != nil || i < 0 || i >= int64(bound) {
		return 0, fmt.Errorf("index %s out of range", excerptPath(n.String()))
	}
	return int(i), nil
}

// chatAccumulator adds up chat completion chunks: each choice's delta is merged into its
// message, strings appended, and the other members of the chunk are the last given.
type chatAccumulator struct {
	top     map[string]any
	choices []*chatChoice
}

type chatChoice struct {
	fields  map[string]any // index, finish_reason, ...
	message map[string]any
	tools   []map[string]any // the message's tool_calls, by index
	logs    map[string][]any // logprobs.content and .refusal, appended
}

func (a *chatAccumulator) add(data []byte) error {
	chunk, err := decodeObject(data)
	if err != nil {
		return err
	}
	for k, v := range chunk {
		switch {
		case k == "choices":
		case k == "object":
			if s, ok := v.(string); ok {
				a.top[k] = strings.TrimSuffix(s, ".chunk")
			}
		case v != nil:
			a.top[k] = v
		}
	}
	choices, _ := chunk["choices"].([]any)
	for _, c := range choices {
		choice, ok := c.(map[string]any)
		if !ok {
			return errors.New("choice is not an object")
		}
		i, err := index(choice["index"], maxChoices)
		if err != nil {
			return fmt.Errorf("choice: %w", err)
		}
		for len(a.choices) <= i {
			a.choices = append(a.choices, &chatChoice{fields: map[string]any{"index": json.Number(fmt.Sprint(len(a.choices)))},
				message: map[string]any{"role": "assistant"}})
		}
		if err := a.choices[i].add(choice); err != nil {
			return err
		}
	}
	return nil
}

func (c *chatChoice) add(choice map[string]any) error {
	for k, v := range choice {
		switch {
		case v == nil:
		case k == "delta":
			delta, ok := v.(map[string]any)
			if !ok {
				return errors.New("delta is not an object")
			}
			if err := c.addDelta(delta); err != nil {
				return err
			}
		case k == "logprobs":
			lp, _ := v.(map[string]any)
			for name, items := range lp {
				if list, ok := items.([]any); ok {
					if c.logs == nil {
						c.logs = map[string][]any{}
					}
					c.logs[name] = append(c.logs[name], list...)
				}
			}
		default:
			c.fields[k] = v
		}
	}
	return nil
}

func (c *chatChoice) addDelta(delta map[string]any) error {
	for k, v := range delta {
		switch k {
		case "tool_calls":
			calls, _ := v.([]any)
			if err := c.addToolCalls(calls); err != nil {
				return err
			}
		default:
			merge(c.message, k, v)
		}
	}
	return nil
}

// addToolCalls merges the tool call deltas of one chunk: each addresses its call by
// index (-1, as some providers send for a single call, is the first).
func (c *chatChoice) addToolCalls(calls []any) error {
	bound := len(c.tools) + maxToolCallGrowth
	for _, call := range calls {
		delta, ok := call.(map[string]any)
		if !ok {
			return errors.New("tool call is not an object")
		}
		if n, ok := delta["index"].(json.Number); ok && n.String() == "-1" {
			delta["index"] = json.Number("0")
		}
		i, err := index(delta["index"], bound)
		if err != nil {
			return fmt.Errorf("tool call: %w", err)
		}
		for len(c.tools) <= i {
			c.tools = append(c.tools, map[string]any{})
		}
		for k, v := range delta {
			if k != "index" {
				merge(c.tools[i], k, v)
			}
		}
	}
	return nil
}

// merge merges the delta value v of the member k into m: a string is appended to the
// one there (an id, a type or a role replaces it), an object merged member by member,
// a list appended to, anything else replaces what was there; null changes nothing.
func merge(m map[string]any, k string, v any) {
	switch v := v.(type) {
	case nil:
	case string:
		old, _ := m[k].(string)
		switch k {
		case "id", "type", "role", "object", "model":
			if v != "" {
				m[k] = v
			}
		default:
			m[k] = old + v
		}
	case map[string]any:
		inner, ok := m[k].(map[string]any)
		if !ok {
			inner = map[string]any{}
			m[k] = inner
		}
		for ik, iv := range v {
			merge(inner, ik, iv)
		}
	case []any:
		old, _ := m[k].([]any)
		m[k] = append(old, v...)
	default:
		m[k] = v
	}
}

func (a *chatAccumulator) response() ([]byte, error) {
	out := make(map[string]any, len(a.top)+1)
	for k, v := range a.top {
		out[k] = v
	}
	choices := make([]any, len(a.choices))
	for i, c := range a.choices {
		choice := make(map[string]any, len(c.fields)+2)
		for k, v := range c.fields {
			choice[k] = v
		}
		if len(c.tools) > 0 {
			tools := make([]any, len(c.tools))
			for j, t := range c.tools {
				tools[j] = t
			}
			c.message["tool_calls"] = tools
		}
		choice["message"] = c.message
		if c.logs != nil {
			choice["logprobs"] = c.logs
		}
		choices[i] = choice
	}
	out["choices"] = choices
	return json.Marshal(out)
}

// messageAccumulator adds up a message's stream: message_start gives the message,
// content blocks start, grow by deltas and stop, message_delta sets the message's last
// members (stop_reason, usage).
type messageAccumulator struct {
	message map[string]any
	blocks  []map[string]any
	partial []strings.Builder // a tool use block's input, until the block stops
}

func (a *messageAccumulator) add(data []byte) error {
	ev, err := decodeObject(data)
	if err != nil {
		return err
	}
	typ, _ := ev["type"].(string)
	if typ != "message_start" && a.message == nil {
		if typ == "ping" {
			return nil
		}
		return fmt.Errorf("%q event before message_start", excerptPath(typ))
	}
	switch typ {
	case "message_start":
		m, ok := ev["message"].(map[string]any)
		if !ok {
			return errors.New("message_start without a message")
		}
		a.message, a.blocks, a.partial = m, nil, nil
		if content, ok := m["content"].([]any); ok {
			for _, b := range content {
				if block, ok := b.(map[string]any); ok && len(a.blocks) < maxContentBlocks {
					a.blocks = append(a.blocks, block)
					a.partial = append(a.partial, strings.Builder{})
				}
			}
		}
	case "content_block_start":
		i, err := index(ev["index"], min(len(a.blocks)+1, maxContentBlocks))
		if err != nil {
			return fmt.Errorf("content block: %w", err)
		}
		block, ok := ev["content_block"].(map[string]any)
		if !ok {
			return errors.New("content_block_start without a block")
		}
		if i == len(a.blocks) {
			a.blocks, a.partial = append(a.blocks, block), append(a.partial, strings.Builder{})
		} else {
			a.blocks[i], a.partial[i] = block, strings.Builder{}
		}
	case "content_block_delta":
		i, err := index(ev["index"], len(a.blocks))
		if err != nil {
			return fmt.Errorf("content block: %w", err)
		}
		delta, _ := ev["delta"].(map[string]any)
		block := a.blocks[i]
		switch dt, _ := delta["type"].(string); dt {
		case "input_json_delta":
			s, _ := delta["partial_json"].(string)
			a.partial[i].WriteString(s)
		case "citations_delta":
			list, _ := block["citations"].([]any)
			block["citations"] = append(list, delta["citation"])
		default: // text_delta, thinking_delta, signature_delta, and those to come
			for k, v := range delta {
				if k != "type" {
					merge(block, k, v)
				}
			}
		}
	case "content_block_stop":
		i, err := index(ev["index"], len(a.blocks))
		if err != nil {
			return fmt.Errorf("content block: %w", err)
		}
		return a.stop(i)
	case "message_delta":
		delta, _ := ev["delta"].(map[string]any)
		for k, v := range delta {
			a.message[k] = v
		}
		usage, _ := ev["usage"].(map[string]any)
		if len(usage) > 0 {
			u, ok := a.message["usage"].(map[string]any)
			if !ok {
				u = map[string]any{}
				a.message["usage"] = u
			}
			for k, v := range usage {
				if v != nil {
					u[k] = v // the counts are the totals so far
				}
			}
		}
	}
	return nil
}

// stop ends block i: a tool use's input, sent in pieces, is parsed whole.
func (a *messageAccumulator) stop(i int) error {
	if a.partial[i].Len() == 0 {
		return nil
	}
	text := a.partial[i].String()
	a.partial[i].Reset()
	if !json.Valid([]byte(text)) {
		return fmt.Errorf("content block %d: its input is not JSON", i)
	}
	a.blocks[i]["input"] = json.RawMessage(text)
	return nil
}

func (a *messageAccumulator) response() ([]byte, error) {
	if a.message == nil {
		return nil, errors.New("no message_start event")
	}
	for i := range a.blocks {
		if err := a.stop(i); err != nil {
			return nil, err
		}
	}
	content := make([]any, len(a.blocks))
	for i, b := range a.blocks {
		content[i] = b
	}
	a.message["content"] = content
	return json.Marshal(a.message)
}
