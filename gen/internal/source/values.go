package source

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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
	case bool, int, int64, uint64, float64, json.Number:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
