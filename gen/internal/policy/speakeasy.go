package policy

import (
	"fmt"
	"strings"

	"github.com/retrygen/retrygen/gen/internal/source"
)

// speakeasyGroup gathers the operations that one level's x-speakeasy-retries asks to
// retry and that retrygen does not, because they may not be retried: a Speakeasy client
// retries them, a retrygen client does not, and the user is told so once for the level,
// with the fix. The warning is added with the first such operation and counts the
// others as they are resolved.
type speakeasyGroup struct {
	level Level
	op    string // the operation, for an operation's own x-speakeasy-retries
	warns *source.ErrorList

	warning *source.Error
	count   int
	names   []string // the first few operations
}

// speakeasyNamed is how many operations a warning names.
const speakeasyNamed = 3

// speakeasyFix says how to make such operations retried.
const speakeasyFix = "where the API recognises a repeated request by a header such as Idempotency-Key, give the " +
	"operations x-idempotency-key; where repeating them is harmless, x-idempotent: true; in a spec you do not own, " +
	"add them with an overlay (-overlay, see docs/cli.md, \"-overlay\")"

// speakeasyAsks counts the operation, which may not be retried (for reason), in the
// group of the most specific level with an x-speakeasy-retries, when that one asks for
// retries: not when it says strategy: none, nor when a more specific level turns
// retries off.
func speakeasyAsks(op Operation, reason string, levels ...Settings) {
	for _, s := range levels {
		if s.off {
			return
		}
		if s.speakeasySet {
			if s.speakeasy != nil {
				s.speakeasy.add(op.Name, reason)
			}
			return
		}
	}
}

func (g *speakeasyGroup) add(name, reason string) {
	g.count++
	if len(g.names) < speakeasyNamed {
		g.names = append(g.names, name)
	}
	if g.warning == nil {
		g.warning = &source.Error{Pos: g.level.Locate(ExtSpeakeasy), Op: g.op, Fix: speakeasyFix}
		if g.op == "" {
			g.warning.Pointer = g.level.Pointer + "/" + ExtSpeakeasy
		}
		g.warns.Add(g.warning)
	}
	if g.op != "" {
		g.warning.Msg = ExtSpeakeasy + " asks to retry the operation, which retrygen does not retry: " + reason
		return
	}
	list := strings.Join(g.names, ", ")
	if more := g.count - len(g.names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	what := fmt.Sprintf("%d operations", g.count)
	if g.count == 1 {
		what = "1 operation"
	}
	g.warning.Msg = fmt.Sprintf("%s asks to retry %s that retrygen does not retry, as they are neither idempotent nor sent with an idempotency key: %s",
		ExtSpeakeasy, what, list)
}
