package source

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Int reads an integral number decoded from YAML or JSON. A float64 beyond ±2^53 is not
// read: it no longer holds every integer, so the value written in the spec may have been
// rounded when it was decoded.
func Int(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), true
		}
	case float64:
		if n == math.Trunc(n) && n > -(1<<53) && n < 1<<53 {
			return int64(n), true
		}
	case interface{ Int64() (int64, error) }:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
	}
	return 0, false
}

// Float reads a number decoded from YAML or JSON.
func Float(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		if f, err := n.Float64(); err == nil {
			return f, true
		}
	}
	return 0, false
}

// Describe renders a value decoded from YAML or JSON for a message: "null", a quoted
// string, a number or boolean as written, "a list" or "a mapping".
func Describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			return strconv.FormatFloat(v, 'f', -1, 64) // 9007199254740992, not 9.007199254740992e+15
		}
		return fmt.Sprint(v)
	case bool, int, int64, uint64, json.Number:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// Closest returns the candidate within edit distance 2 of s (ignoring case), if any:
// the name a misspelling was probably meant to be.
func Closest(s string, candidates []string) string {
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

// SortedKeys returns m's keys in order: what the generator iterates so that its output
// does not depend on map order.
func SortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
