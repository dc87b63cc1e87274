// Package shown writes text that a peer sent (a server's message, a certificate's names,
// a link) as errors show it: on one line of printable characters, cut short. runtime and
// runtime/wire share it.
package shown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Excerpt returns s on one line, cut to at most limit bytes: control characters (C0,
// DEL, C1) and white space (line and paragraph separators included) become a space, runs
// of them one, and none leads or trails; format characters (bidi controls and isolates,
// zero-width characters) are dropped; bytes that are not UTF-8 become U+FFFD. A cut falls
// between runes and is marked with "…", which comes on top of limit.
func Excerpt(s string, limit int) string {
	var b strings.Builder
	b.Grow(min(len(s), limit) + len("…"))
	space := false // a space is due before the next rune written
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.Is(unicode.Cf, r):
			continue
		}
		n := utf8.RuneLen(r)
		if space {
			n++
		}
		if b.Len()+n > limit {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
