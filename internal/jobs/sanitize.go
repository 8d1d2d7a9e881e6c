package jobs

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A job's error text and result come from outside the request path (SMTP
// replies, remote errors, handler results) where the global middleware that
// refuses NUL never looked. PostgreSQL refuses NUL in TEXT and \u0000 in
// JSONB, and invalid UTF-8 in both: the outcome write would fail, leaving the
// job running until the reaper retries it. They are cleaned before storing.

// cleanText replaces NUL and invalid UTF-8 with U+FFFD.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// cleanJSON returns raw without \u0000 escapes in its strings (only decoded
// and re-encoded when one may be present).
func cleanJSON(raw []byte) []byte {
	if !bytes.Contains(raw, []byte(`\u0000`)) {
		return raw
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return raw
	}
	out, err := json.Marshal(cleanValue(v))
	if err != nil {
		return raw
	}
	return out
}

func cleanValue(v any) any {
	switch x := v.(type) {
	case string:
		return cleanText(x)
	case []any:
		for i := range x {
			x[i] = cleanValue(x[i])
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[cleanText(k)] = cleanValue(e)
		}
		return m
	}
	return v
}
