package store

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// dialectOnly lists the migrations that exist for one dialect only, with the
// reason. Every other number has a file in both folders, under the same name.
var dialectOnly = map[string]string{
	"0750_search_bits.sql":     "postgres: bitmap counts of search hits (SQLite counts the entries directly)",
	"0751_search_bits_log.sql": "postgres: the pending list of 0750 becomes a log",
}

// TestMigrationFoldersInStep keeps the SQLite and PostgreSQL folders in step:
// the same file names, but the dialect-only ones listed above.
func TestMigrationFoldersInStep(t *testing.T) {
	names := func(d Dialect) []string {
		entries, err := fs.ReadDir(migrationFS, "migrations/"+d.String())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".sql") {
				out = append(out, e.Name())
			}
		}
		return out
	}
	sqlite, pg := names(SQLite), names(Postgres)
	for reason, pair := range map[string][2][]string{"postgres": {pg, sqlite}, "sqlite": {sqlite, pg}} {
		for _, n := range pair[0] {
			if slices.Contains(pair[1], n) {
				continue
			}
			why, ok := dialectOnly[n]
			if !ok {
				t.Errorf("%s/%s has no counterpart in the other folder: add it there or list it in dialectOnly", reason, n)
			} else if !strings.HasPrefix(why, reason+":") {
				t.Errorf("%s is listed as %q but exists in %s only", n, why, reason)
			}
		}
	}
	for n := range dialectOnly {
		if !slices.Contains(sqlite, n) && !slices.Contains(pg, n) {
			t.Errorf("dialectOnly names %s, which exists in neither folder", n)
		}
	}
	for _, d := range []Dialect{SQLite, Postgres} {
		if _, err := loadMigrations(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}

// A Go step takes its number's place among the files; a number used by a file is refused.
func TestMigrationStepsOrder(t *testing.T) {
	migs, err := loadMigrations(SQLite, Step{Version: 204, Name: "0204_step"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(migs, func(m migration) bool { return m.version == 204 })
	if i <= 0 || migs[i-1].version != 203 || migs[i+1].version <= 204 {
		t.Fatalf("step not in its place: %d", i)
	}
	if _, err := loadMigrations(SQLite, Step{Version: 203, Name: "0203_clash"}); err == nil {
		t.Fatal("a step sharing a file's number was accepted")
	}
}
