package licence

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestDailyLog: the status is logged at start, then once a day only in the
// last WarnDays days or while read-only.
func TestDailyLog(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := &Service{now: func() time.Time { return day }}
	steps := []struct {
		st    LicenseStatus
		first bool
		next  time.Duration
		want  string // "" = no line
	}{
		{LicenseStatus{Mode: "trial", Valid: true, DaysRemaining: 20}, true, 0, "level=INFO msg=licence"},
		{LicenseStatus{Mode: "trial", Valid: true, DaysRemaining: 20}, false, 24 * time.Hour, ""},
		{LicenseStatus{Mode: "trial", Valid: true, DaysRemaining: 7}, false, 24 * time.Hour, "level=WARN msg=\"licence ends soon"},
		{LicenseStatus{Mode: "trial", Valid: true, DaysRemaining: 7}, false, time.Hour, ""}, // same day: once
		{LicenseStatus{Mode: "expired", Valid: false}, false, 24 * time.Hour, "level=ERROR msg=\"licence not valid"},
	}
	for i, c := range steps {
		day = day.Add(c.next)
		buf.Reset()
		s.logStatus(ctx, c.st, c.first)
		got := buf.String()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Fatalf("step %d: %q, want %q", i, got, c.want)
		}
		if c.want != "" && !strings.Contains(got, "daysRemaining=") {
			t.Fatalf("step %d: no days left in %q", i, got)
		}
	}
}
