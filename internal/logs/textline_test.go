package logs

import (
	"strings"
	"testing"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/export"
)

// TestTextLineIsOneLine: no value of a record writes a raw control
// character or line separator; message, key and names escape backslashes,
// attribute values stay JSON.
func TestTextLineIsOneLine(t *testing.T) {
	e := applog.Entry{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Level: "info", Process: "api\n", Category: "app\u2028",
		Message: "sign-in failed\u0085FORGED \\ line\r\n\t\v\f", Attrs: map[string]any{"login\u0085": "x\u0085y\u2029z\u009b", "n": 1},
		CorrelationID: "req\u2028", JobID: "job\u0085"}
	got := TextLine(e)
	if strings.ContainsFunc(got, export.Breaks) {
		t.Fatalf("raw break in %q", got)
	}
	want := `2026-01-02T03:04:05Z INFO [api\n/app\u2028] sign-in failed\u0085FORGED \\ line\r\n\t\u000b\u000c login\u0085="x\u0085y\u2029z\u009b" n=1 correlationId=req\u2028 jobId=job\u0085`
	if got != want {
		t.Fatalf("TextLine\n got %s\nwant %s", got, want)
	}
}
