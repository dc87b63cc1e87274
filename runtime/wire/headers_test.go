package wire

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestReadHeader(t *testing.T) {
	h := http.Header{
		"N":    {"42"},
		"Big":  {"99999999999"},
		"B":    {"true"},
		"F":    {"1.5"},
		"T":    {"2026-01-02T03:04:05Z"},
		"Date": {"Mon, 02 Jan 2006 15:04:05 GMT"},
		"S":    {"s3cr3t"},
	}
	var n *int64
	if err := ReadHeader(h, "N", &n); err != nil || n == nil || *n != 42 {
		t.Errorf("int64: %v %v", n, err)
	}
	var small *int32
	if err := ReadHeader(h, "Big", &small); err == nil || small != nil {
		t.Errorf("int32 overflow: %v %v", small, err)
	}
	var b *bool
	if err := ReadHeader(h, "B", &b); err != nil || !*b {
		t.Errorf("bool: %v", err)
	}
	var f *float64
	if err := ReadHeader(h, "F", &f); err != nil || *f != 1.5 {
		t.Errorf("float: %v", err)
	}
	var tm, date *time.Time
	if err := ReadHeader(h, "T", &tm); err != nil || tm.Year() != 2026 {
		t.Errorf("time: %v", err)
	}
	if err := ReadHeader(h, "Date", &date); err != nil || date.Year() != 2006 {
		t.Errorf("HTTP date: %v", err)
	}
	missing := new(string)
	if err := ReadHeader(h, "Missing", &missing); err != nil || missing != nil {
		t.Errorf("missing: %v %v", missing, err)
	}
	var bad *int64
	err := ReadHeader(h, "S", &bad)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "S") {
		t.Errorf("bad value: %v", err)
	}
}
