package wire

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// HeaderScalar are the types a declared response header is read into.
type HeaderScalar interface {
	string | bool | int32 | int64 | float32 | float64 | time.Time
}

// ReadHeader sets *out to the value of header name in h, parsed as T (a time.Time as
// RFC 3339, or as an HTTP date); an absent header sets *out to nil. A value that does not
// parse is an error that names the header but does not quote the value.
func ReadHeader[T HeaderScalar](h http.Header, name string, out **T) error {
	vs := h.Values(name)
	if len(vs) == 0 {
		*out = nil
		return nil
	}
	s := vs[0]
	v := new(T)
	var err error
	switch p := any(v).(type) {
	case *string:
		*p = s
	case *bool:
		*p, err = strconv.ParseBool(s)
	case *int32:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		*p = int32(n)
	case *int64:
		*p, err = strconv.ParseInt(s, 10, 64)
	case *float32:
		var f float64
		f, err = strconv.ParseFloat(s, 32)
		*p = float32(f)
	case *float64:
		*p, err = strconv.ParseFloat(s, 64)
	case *time.Time:
		*p, err = time.Parse(time.RFC3339, s)
		if err != nil {
			*p, err = http.ParseTime(s)
		}
	}
	if err != nil {
		return fmt.Errorf("response header %s: not a %T", name, *v)
	}
	*out = v
	return nil
}
