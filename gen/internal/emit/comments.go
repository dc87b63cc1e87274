package emit

import (
	doccomment "go/doc/comment"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
)

// wrapAt is the width, in runes, past which comment text is wrapped at a space.
const wrapAt = 100

// docLines turns spec text into comment lines: one per line of text, wrapped at about
// 100 columns, with blank runs collapsed and leading and trailing blank lines dropped.
// Each line is clean (see cleanLine), so no spec text can end a comment, start a
// directive, or hide code behind bidirectional controls.
func docLines(text string) []string {
	text = strings.ToValidUTF8(text, "\uFFFD")
	if strings.IndexByte(text, '\r') >= 0 || strings.Contains(text, "\u2028") || strings.Contains(text, "\u2029") || strings.Contains(text, "\u0085") {
		text = newlines.Replace(text)
	}
	var out []string
	blank := false
	for _, line := range strings.Split(text, "\n") {
		line = cleanLine(line)
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, wrap(line)...)
	}
	return out
}

// newlines are the line breaks of spec text, as \n.
var newlines = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n", "\u0085", "\n")

// cleanLine drops the characters that must not appear in a generated comment: NUL and
// other control characters (a tab becomes a space), the byte order mark, and the
// bidirectional formatting characters of Trojan Source (CVE-2021-42574). Trailing space
// is trimmed.
func cleanLine(s string) string {
	clean := true
	for _, r := range s {
		if dropRune(r) || r == '\t' {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case dropRune(r):
				return -1
			}
			return r
		}, s)
	}
	return strings.TrimRightFunc(s, unicode.IsSpace)
}

func dropRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1
		return true
	case r == 0xFEFF: // byte order mark
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// wrap cuts a long line at spaces so that each piece is at most wrapAt runes, when it can.
func wrap(line string) []string {
	if utf8.RuneCountInString(line) <= wrapAt {
		return []string{line}
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	var out []string
	var cur strings.Builder
	curLen := 0
	for w := range strings.FieldsSeq(line) {
		n := utf8.RuneCountInString(w)
		if curLen > len(indent) && curLen+1+n > wrapAt {
			out = append(out, cur.String())
			cur = strings.Builder{}
		}
		if cur.Len() == 0 {
			cur.Grow(wrapAt + len(w))
			cur.WriteString(indent)
			curLen = len(indent)
		} else {
			cur.WriteByte(' ')
			curLen++
		}
		cur.WriteString(w)
		curLen += n
	}
	if cur.Len() == 0 {
		cur.WriteString(indent)
	}
	return append(out, cur.String())
}

// oneLine flattens text to a single clean line, for places that hold one line only
// (the file header, a struct field note).
func oneLine(text string) string {
	return strings.Join(strings.Fields(strings.Join(docLines(text), " ")), " ")
}

// comment renders one clean line as a // comment. The text is given to jennifer with the
// slashes already in place, so it is written verbatim: jennifer never turns it into a
// /* */ block, whatever the text holds.
func comment(line string) jen.Code {
	if line == "" {
		return jen.Comment("//")
	}
	return jen.Comment("// " + line)
}

// doc is a builder of doc-comment paragraphs.
type doc struct {
	lines []string
}

// para adds a paragraph of spec text (any number of lines), separated from the previous
// paragraph by a blank comment line.
func (d *doc) para(text string) {
	lines := docLines(text)
	if len(lines) == 0 {
		return
	}
	if len(d.lines) > 0 {
		d.lines = append(d.lines, "")
	}
	d.lines = append(d.lines, lines...)
}

// line adds a paragraph of one line that is never wrapped.
func (d *doc) line(text string) {
	text = oneLine(text)
	if text == "" {
		return
	}
	if len(d.lines) > 0 {
		d.lines = append(d.lines, "")
	}
	d.lines = append(d.lines, text)
}

// block adds a code block of the generator's own text: lines of Go that go doc shows as
// written, indented by a tab.
func (d *doc) block(lines ...string) {
	if len(d.lines) > 0 {
		d.lines = append(d.lines, "")
	}
	for _, l := range lines {
		d.lines = append(d.lines, "\t"+cleanLine(l))
	}
}

// code renders the comment lines, each followed by a newline, as go/format writes a doc
// comment. Every doc is followed by what it documents, on the next line and, once
// render has unindented it, in column 1, where go/format would rewrite the comment with
// go/doc/comment: code writes it rewritten already (docs repeat, and a rewrite is worked
// out once for each text) and indents its first line, so that go/format leaves it as it
// is. go/format places a comment's lines by their line numbers only, and drops the
// space jennifer writes after each, so the output is the same.
func (d *doc) code() *jen.Statement {
	if len(d.lines) == 0 {
		return jen.Null()
	}
	s := jen.Op(" ")
	for _, l := range formatDoc(d.lines) {
		s.Add(jen.Comment(l)).Line()
	}
	return s
}

// docLine renders a doc comment of one line, which code writes as such whatever its length.
func docLine(line string) *jen.Statement {
	return (&doc{lines: []string{line}}).code()
}

// docs holds the doc comments formatDoc has worked out while a generation runs, by their
// text.
var docs struct {
	sync.Mutex
	formatted map[string][]string
	running   int // generations under way; the last one to end drops formatted
}

// beginDocs and endDocs bracket a generation.
func beginDocs() {
	docs.Lock()
	defer docs.Unlock()
	docs.running++
}

func endDocs() {
	docs.Lock()
	defer docs.Unlock()
	if docs.running--; docs.running == 0 {
		docs.formatted = nil
	}
}

// formatDoc returns the // lines go/format (go/printer's formatDocComment) makes of the
// doc comment lines: each comment(line), as render writes it, is "// line " or "// ".
func formatDoc(lines []string) []string {
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(l)
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	text := b.String()
	docs.Lock()
	out, ok := docs.formatted[text]
	docs.Unlock()
	if ok {
		return out
	}
	var p doccomment.Parser
	var pr doccomment.Printer
	for rest := string(pr.Comment(p.Parse(text))); rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		switch {
		case line == "":
			line = "//"
		case strings.HasPrefix(line, "\t"):
			line = "//" + line
		default:
			line = "// " + line
		}
		out = append(out, line)
	}
	docs.Lock()
	if docs.running > 0 {
		if docs.formatted == nil {
			docs.formatted = map[string][]string{}
		}
		docs.formatted[text] = out
	}
	docs.Unlock()
	return out
}
