package licence

import (
	"context"
	"testing"
	"time"

	"coreportal/internal/settings"
	"coreportal/internal/store/storetest"
)

func TestTrial(t *testing.T) {
	db := storetest.OpenSQLite(t)
	st := settings.New(db)
	ctx := context.Background()
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.Set(ctx, "first_start_at", first.Format(time.RFC3339)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		now   time.Time
		mode  string
		valid bool
		days  int
	}{
		{"first day", first.Add(time.Hour), "trial", true, 30},
		{"half way", first.Add(15 * 24 * time.Hour), "trial", true, 15},
		{"last hour", first.Add(30*24*time.Hour - time.Hour), "trial", true, 1},
		{"expired", first.Add(30 * 24 * time.Hour), "expired", false, 0},
		{"long expired", first.Add(400 * 24 * time.Hour), "expired", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Service{settings: st, now: func() time.Time { return c.now }}
			got, err := s.Refresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != c.mode || got.Valid != c.valid || got.DaysRemaining != c.days || s.Writable() != c.valid {
				t.Fatalf("got %+v", got)
			}
			if !got.ExpiresAt.Equal(first.Add(30 * 24 * time.Hour)) {
				t.Fatalf("expiresAt %v", got.ExpiresAt)
			}
		})
	}
}
