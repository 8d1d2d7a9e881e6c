package modules

import (
	"context"
	"testing"
	"time"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestRecordStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		st := &recordStore{db: db}
		if r, err := st.get(ctx, "acme.x"); err != nil || r != nil {
			t.Fatalf("missing record: %v %v", r, err)
		}
		at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		rec := &Record{ModuleKey: "acme.x", Version: "1.0.0", Title: "X", Source: "upload", InstalledAt: at, InstalledBy: "admin", UpdatedAt: at, Requires: []string{"acme.a@>=1.0.0"},
			ResourceMap: map[string]string{"nodes.x": "2f1c0b8e-0000-4000-8000-000000000001"},
			InstallLog:  []LogEntry{{At: at, Version: "1.0.0", Message: "installing"}}}
		err := db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			if err := st.lock(ctx); err != nil {
				return err
			}
			return st.save(ctx, rec, true)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.save(ctx, rec, true); !store.IsUnique(err) {
			t.Fatalf("second insert of one key: %v, want a unique violation", err)
		}
		rec.Version, rec.UpdatedAt = "1.1.0", at.Add(time.Hour)
		rec.ResourceMap["lists.y"] = "2f1c0b8e-0000-4000-8000-000000000002"
		rec.InstallLog = append(rec.InstallLog, LogEntry{At: rec.UpdatedAt, Version: "1.1.0", Message: "upgrading"})
		if err := st.save(ctx, rec, false); err != nil {
			t.Fatal(err)
		}
		got, err := st.get(ctx, "acme.x")
		if err != nil || got == nil {
			t.Fatalf("get: %v", err)
		}
		if got.Version != "1.1.0" || !got.InstalledAt.Equal(at) || !got.UpdatedAt.Equal(at.Add(time.Hour)) || len(got.ResourceMap) != 2 || len(got.InstallLog) != 2 || got.InstallLog[1].Message != "upgrading" ||
			len(got.Requires) != 1 || got.Requires[0] != "acme.a@>=1.0.0" {
			t.Fatalf("record %+v", got)
		}
		_ = st.save(ctx, &Record{ModuleKey: "acme.a", Version: "1.0.0", Title: "A", InstalledAt: at, UpdatedAt: at, ResourceMap: map[string]string{}, InstallLog: []LogEntry{}}, true)
		all, err := st.all(ctx)
		if err != nil || len(all) != 2 || all[0].ModuleKey != "acme.a" {
			t.Fatalf("all: %v %v", all, err)
		}
	})
}
