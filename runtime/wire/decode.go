package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/retrygen/retrygen/runtime"
)

// DecodeJSON decodes resp's body into v and closes it. An empty body leaves v unset.
func DecodeJSON(resp *http.Response, v any) error {
	defer closeBody(resp)
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil && err != io.EOF {
		return fmt.Errorf("decode %d response: %w", resp.StatusCode, err)
	}
	return nil
}

// ReadBody reads resp's whole body into *out and closes it.
func ReadBody(resp *http.Response, out *[]byte) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read %d response: %w", resp.StatusCode, err)
	}
	*out = data
	return nil
}

// Discard closes a response whose body the operation does not declare, after draining a
// little of it so that the connection can be reused. It returns nil.
func Discard(resp *http.Response) error {
	_ = closeBody(resp)
	return nil
}

// closeBody drains a little of resp's body, so that the connection can be reused, and
// closes it.
func closeBody(resp *http.Response) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// DecodeError decodes the body of a failed call's response into the error model pick
// returns for its status, and attaches it to the *runtime.Error as Model, so that
// errors.As reaches it. A model that does not decode is left out. err is returned either
// way.
func DecodeError(err error, pick func(status int) any) error {
	var apiErr *runtime.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode == 0 || len(apiErr.Body) == 0 {
		return err
	}
	if m := pick(apiErr.StatusCode); m != nil && json.Unmarshal(apiErr.Body, m) == nil {
		apiErr.Model = m
	}
	return err
}

// ErrorText is the Error text of an error model: its JSON, cut after 512 bytes.
func ErrorText(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return "error response"
	}
	const max = 512
	if len(data) > max {
		return string(data[:max]) + "…"
	}
	return string(data)
}
