package wire

import (
	"fmt"
	"time"
)

// Date is a civil date, the Go type of `format: date` (RFC 3339 full-date, "2024-02-29"),
// without a time of day or a time zone. Its JSON and text form is that string.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate parses "2006-01-02".
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, fmt.Errorf("date %q: want YYYY-MM-DD", s)
	}
	return DateOf(t), nil
}

// String returns the date as "2006-01-02".
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// In returns midnight at the start of d in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// MarshalText writes the date as "2006-01-02"; a date that has no such form (a month out
// of range, a year beyond four digits) is an error.
func (d Date) MarshalText() ([]byte, error) {
	if d.Year < 0 || d.Year > 9999 || d.Month < 1 || d.Month > 12 || d.Day < 1 || d.Day > 31 {
		return nil, fmt.Errorf("date %d-%d-%d is not a valid full-date", d.Year, int(d.Month), d.Day)
	}
	return []byte(d.String()), nil
}

// UnmarshalText parses "2006-01-02".
func (d *Date) UnmarshalText(text []byte) error {
	v, err := ParseDate(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
