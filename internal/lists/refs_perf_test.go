package lists

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestRefPerf times listings of 100,000 items by a person field's display
// (sort, contains, eq) on both databases; opt-in, it is a measurement:
//
//	REFPERF=1 TEST_DATABASE_URL=postgres://… go test ./internal/lists/ -run TestRefPerf -v -timeout 900s
func TestRefPerf(t *testing.T) {
	if os.Getenv("REFPERF") == "" {
		t.Skip()
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		now := time.Now().UTC()
		var ids []string
		for i := 0; i < 500; i++ {
			id := uuid.NewString()
			ids = append(ids, id)
			if _, err := db.W(ctx).ExecContext(ctx, "INSERT INTO users (id, login, login_norm, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", id, id, id, fmt.Sprintf("User %03d name", (i*37)%500), now, now); err != nil {
				t.Fatal(err)
			}
		}
		l, err := f.svc.Create(ctx, f.admin, NewList{NodeID: f.node, Title: "P", Slug: "p"})
		if err != nil {
			t.Fatal(err)
		}
		name, typ := "owner", "person"
		if _, err := f.svc.CreateField(ctx, f.admin, l.ID, FieldInput{InternalName: &name, Title: &name, FieldType: &typ}); err != nil {
			t.Fatal(err)
		}
		sc := mustLoad(t, f.svc, l.ID)
		owner, _ := sc.resolve("owner")
		const n = 100000
		for start := 0; start < n; start += 5000 {
			rows := make([]Values, 0, 5000)
			for i := start; i < start+5000; i++ {
				rows = append(rows, raws(map[string]any{"title": fmt.Sprintf("item %d", i)}))
			}
			if err := f.svc.SeedItems(ctx, f.admin, l.ID, rows); err != nil {
				t.Fatal(err)
			}
		}
		// owners set directly (validation per row is not what is measured)
		for i, id := range ids {
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE "+sc.list.Table+" SET "+owner.Column()+" = ? WHERE id % 500 = ?", "u:"+id, i); err != nil {
				t.Fatal(err)
			}
		}
		if db.Dialect == store.Postgres {
			_, err = db.W(ctx).ExecContext(ctx, "VACUUM ANALYZE "+sc.list.Table)
		} else {
			_, err = db.W(ctx).ExecContext(ctx, "ANALYZE")
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ name, filter, sort string }{
			{"sort owner asc", "", "owner:asc"},
			{"sort owner desc p20", "", "owner:desc"},
			{"contains owner", `{"conditions":[{"column":"owner","operator":"contains","value":"user 01"}]}`, ""},
			{"eq owner", `{"conditions":[{"column":"owner","operator":"eq","value":"` + ids[7] + `"}]}`, ""},
			{"contains owner sorted", `{"conditions":[{"column":"owner","operator":"contains","value":"user 01"}]}`, "owner:asc"},
			{"no filter", "", ""},
		} {
			var best time.Duration
			for r := 0; r < 3; r++ {
				f.svc.counts = newCountCache()
				t0 := time.Now()
				items, meta, err := f.svc.ListItems(ctx, f.admin, l.ID, ListParams{Filter: c.filter, Sort: c.sort, Limit: 50})
				d := time.Since(t0)
				if err != nil || len(items) == 0 {
					t.Fatalf("%s: %v %d", c.name, err, len(items))
				}
				if r == 0 || d < best {
					best = d
				}
				if r == 2 {
					t.Logf("%s %s: best %v total %d first %v", db.Dialect, c.name, best, meta.Total, items[0].FieldValues[owner.ID])
				}
			}
		}
	})
}
