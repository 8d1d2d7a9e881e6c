package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestRebind(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"x = '?' AND y = ?", "x = '?' AND y = $1"},
		{`"we?ird" = ?`, `"we?ird" = $1`},
	}
	for _, c := range cases {
		if got := store.Postgres.Rebind(c.in); got != c.want {
			t.Errorf("Rebind(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := store.SQLite.Rebind(c.in); got != c.in {
			t.Errorf("SQLite changed %q", c.in)
		}
	}
}

func TestLike(t *testing.T) {
	if got := store.Like(`50%_a\b`); got != `%50\%\_a\\b%` {
		t.Fatalf("Like = %q", got)
	}
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now().UTC()

		t.Run("migrate twice is a no-op", func(t *testing.T) {
			if err := db.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("rollback keeps nothing, nested joins outer", func(t *testing.T) {
			boom := errors.New("boom")
			ran := false
			err := db.InTx(ctx, func(ctx context.Context, tx *store.Tx) error {
				if _, err := tx.ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "k1", "v", now); err != nil {
					return err
				}
				tx.AfterCommit(func() { ran = true })
				return db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error { return boom })
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if ran {
				t.Fatal("after-commit ran on rollback")
			}
			var n int
			if err := db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM settings WHERE key = ?", "k1").Scan(&n); err != nil || n != 0 {
				t.Fatalf("n=%d err=%v", n, err)
			}
		})

		t.Run("unique violation is translated", func(t *testing.T) {
			ins := func() error {
				_, err := db.W(ctx).ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "dup", "v", now)
				return err
			}
			if err := ins(); err != nil {
				t.Fatal(err)
			}
			if err := ins(); !store.IsUnique(err) {
				t.Fatalf("want unique violation, got %v", err)
			}
		})

		t.Run("timestamps round-trip in UTC", func(t *testing.T) {
			if _, err := db.W(ctx).ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)", "ts", "v", now); err != nil {
				t.Fatal(err)
			}
			var got time.Time
			if err := db.Q(ctx).QueryRowContext(ctx, "SELECT updated_at FROM settings WHERE key = ?", "ts").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if d := got.Sub(now); d > time.Millisecond || d < -time.Millisecond {
				t.Fatalf("got %v want %v", got, now)
			}
		})
	})
}

func TestCanonicalUUID(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-469f-a165-70867728950e", true},
		{"urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e", "", false},
		{"{0f8fad5b-d9cb-469f-a165-70867728950e}", "", false},
		{"0f8fad5bd9cb469fa16570867728950e", "", false},
		{"0f8fad5b-d9cb-469f-a165-70867728950x", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := store.CanonicalUUID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("CanonicalUUID(%q) = %q, %v", c.in, got, ok)
		}
	}
}

func TestInvalidInputOnPostgres(t *testing.T) {
	if storetest.PostgresURL(t) == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	db := storetest.OpenPostgres(t)
	ctx := context.Background()
	var s string
	err := db.Q(ctx).QueryRowContext(ctx, "SELECT id FROM users WHERE id = ?", "urn:uuid:x").Scan(&s)
	if !store.IsInvalidInput(err) {
		t.Fatalf("bad uuid: %v", err)
	}
	_, err = db.W(ctx).ExecContext(ctx, "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, now())", "nul", "a\x00b")
	if !store.IsInvalidInput(err) {
		t.Fatalf("NUL: %v", err)
	}
}

// Parallel query is off on the service's sessions unless something chose its
// value: the URL (runtime parameter) or the database's own setting.
func TestParallelQueryDefault(t *testing.T) {
	if storetest.PostgresURL(t) == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	base := storetest.FreshPostgresDB(t)
	show := func(u string) string {
		db, err := store.Open(ctx, u, "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var got string
		if err := db.Q(ctx).QueryRowContext(ctx, "SHOW max_parallel_workers_per_gather").Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	sep := map[bool]string{true: "&", false: "?"}[strings.Contains(base, "?")]
	if got := show(base); got != "0" {
		t.Fatalf("default: %s, want 0", got)
	}
	if got := show(base + sep + "max_parallel_workers_per_gather=2"); got != "2" {
		t.Fatalf("URL: %s, want 2", got)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, base, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.W(ctx).ExecContext(ctx, "ALTER DATABASE "+strings.TrimPrefix(u.Path, "/")+" SET max_parallel_workers_per_gather = 3")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := show(base); got != "3" {
		t.Fatalf("ALTER DATABASE: %s, want 3", got)
	}
}

func TestTuples(t *testing.T) {
	for _, c := range []struct {
		rows, width int
		want        string
	}{{0, 2, ""}, {1, 1, "(?)"}, {1, 3, "(?, ?, ?)"}, {2, 2, "(?, ?), (?, ?)"}} {
		if got := store.Tuples(c.rows, c.width); got != c.want {
			t.Fatalf("Tuples(%d, %d) = %q, want %q", c.rows, c.width, got, c.want)
		}
	}
}
