package store

import (
	"context"
	"path/filepath"
	"testing"
)

func TestSQLiteMemorySettings(t *testing.T) {
	cases := []struct {
		name, mmap, cache string
		wantMmap, wantKiB int64
	}{
		{"defaults", "", "", 0, 16 << 10},
		{"chosen", "64", "4", 64 << 20, 4 << 10},
		{"invalid falls back", "-1", "lots", 0, 16 << 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("CORE_SQLITE_MMAP_MB", c.mmap)
			t.Setenv("CORE_SQLITE_CACHE_MB", c.cache)
			ctx := context.Background()
			db, err := Open(ctx, "", filepath.Join(t.TempDir(), "core.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []Querier{db.W(ctx), db.Q(ctx)} {
				var mmap, cache int64
				if err := q.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
					t.Fatal(err)
				}
				if err := q.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
					t.Fatal(err)
				}
				if mmap != c.wantMmap || cache != -c.wantKiB {
					t.Fatalf("mmap_size %d cache_size %d, want %d and -%d", mmap, cache, c.wantMmap, c.wantKiB)
				}
			}
		})
	}
}
