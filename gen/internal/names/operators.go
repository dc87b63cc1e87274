package names

import "strings"

// operators are the comparison operators that query parameter names carry as filters
// (Twilio's "DateSent<", "StartTime>="), longest first, with the words they become: of a
// time or a date, before and after; of anything else, less and greater.
var operators = []struct {
	op, temporal, other string
}{
	{"<=", "OrBefore", "AtMost"},
	{">=", "OrAfter", "AtLeast"},
	{"!=", "Not", "Not"},
	{"<>", "Not", "Not"},
	{"<", "Before", "LessThan"},
	{">", "After", "GreaterThan"},
	{"=", "Equals", "Equals"},
}

// SpellOperators writes the comparison operators in s as words, so that GoName and
// LowerName read them instead of dropping them: "DateSent<" → "DateSent Before",
// "StartTime>=" → "StartTime OrAfter", "Price>" → "Price GreaterThan" (temporal reports
// that the parameter is a time or a date). Text made of an operator alone is left to
// GoName, which names its symbols ("<" → "Lt").
func SpellOperators(s string, temporal bool) string {
	if !strings.ContainsAny(s, "<>=!") || len(Words(s)) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		matched := false
		for _, o := range operators {
			if strings.HasPrefix(s[i:], o.op) {
				word := o.other
				if temporal {
					word = o.temporal
				}
				b.WriteString(" " + word + " ")
				i += len(o.op)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(s[i])
			i++
		}
	}
	return strings.TrimSpace(b.String())
}
