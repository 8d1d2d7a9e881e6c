package backup

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/klauspost/compress/gzip"

	"coreportal/internal/blob"
	"coreportal/internal/store"
)

// Hooks let capabilities take part in a restore.
type Hooks struct {
	// RebuildTables re-creates dynamic tables (list items) from the restored
	// metadata; exists tells which tables are there.
	RebuildTables func(ctx context.Context, exists func(table string) bool) (int, error)
	// Restored runs in the restore's transaction after every row is back:
	// caches are dropped on every instance once it commits.
	Restored func(ctx context.Context) error
	// Administrators lists the administrators' logins after a restore.
	Administrators func(ctx context.Context) ([]string, error)
}

// Restore verifies path with key, then replaces the database content and
// the blobs with the archive's in one transaction (no maintenance flag, no
// audit record: for tools; the service uses Service.RestoreFile). The
// schema versions must match.
func Restore(ctx context.Context, db *store.DB, blobs blob.Store, path string, key *Key, opts RestoreOptions, hooks Hooks) (*Manifest, error) {
	c, err := Verify(path, key)
	if err != nil {
		return nil, err
	}
	if !c.Verified && !opts.AcceptUnverified {
		return nil, fmt.Errorf("%w: %s", ErrUnverified, c.Why)
	}
	return apply(ctx, db, blobs, path, c, hooks)
}

// apply restores an archive Verify accepted: its secrets when c holds
// them, otherwise the safe values of restoreSecrets.
func apply(ctx context.Context, db *store.DB, blobs blob.Store, path string, c *Checked, hooks Hooks) (*Manifest, error) {
	m := c.Manifest
	version, err := db.SchemaVersion(ctx)
	if err != nil {
		return nil, err
	}
	if version != m.SchemaVersion {
		return nil, fmt.Errorf("the archive has schema version %d, this database %d: restore it with the release that wrote it", m.SchemaVersion, version)
	}
	// Blobs first: extra blobs are harmless if the database part fails.
	if err := eachPart(path, partSums(m), func(name string, r io.Reader) error {
		key, ok := strings.CutPrefix(name, "blobs/")
		if !ok {
			return nil
		}
		_, err := blobs.Put(ctx, key, r)
		return err
	}); err != nil {
		return nil, fmt.Errorf("restore blobs: %w", err)
	}
	static, err := db.MigrationTables()
	if err != nil {
		return nil, err
	}
	err = db.InTx(ctx, func(ctx context.Context, tx *store.Tx) error {
		return restoreTables(ctx, db, tx, path, c, static, hooks)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func restoreTables(ctx context.Context, db *store.DB, tx *store.Tx, path string, c *Checked, static map[string]bool, hooks Hooks) error {
	m := c.Manifest
	pg := db.Dialect == store.Postgres
	if pg {
		// no foreign-key or counter triggers while rows arrive in table order
		if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return fmt.Errorf("restore needs a PostgreSQL role allowed to set session_replication_role: %w", err)
		}
	} else if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
		return fmt.Errorf("defer foreign keys: %w", err)
	}
	tables, err := db.Tables(ctx)
	if err != nil {
		return err
	}
	var wipe []string
	for _, t := range tables {
		switch {
		case Excluded[t], Merged[t]:
		case Derived[t]:
			wipe = append(wipe, store.QuoteIdent(t))
		case !static[t]:
			if _, err := tx.ExecContext(ctx, "DROP TABLE "+store.QuoteIdent(t)); err != nil {
				return fmt.Errorf("drop %s: %w", t, err)
			}
		default:
			wipe = append(wipe, store.QuoteIdent(t))
		}
	}
	if !pg {
		// the SQLite full-text index of the search capability, when present
		if _, err := tx.ExecContext(ctx, "INSERT INTO search_fts(search_fts) VALUES('delete-all')"); err != nil && !strings.Contains(err.Error(), "no such table") {
			return fmt.Errorf("empty the search index: %w", err)
		}
	}
	if pg && len(wipe) > 0 {
		if _, err := tx.ExecContext(ctx, "TRUNCATE "+strings.Join(wipe, ", ")); err != nil {
			return fmt.Errorf("empty tables: %w", err)
		}
	} else {
		for _, t := range wipe {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
				return fmt.Errorf("empty %s: %w", t, err)
			}
		}
	}
	for _, t := range tables {
		if q, ok := derivedSeed[t]; ok {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("reset %s: %w", t, err)
			}
		}
	}
	inArchive := map[string]TablePart{}
	for _, t := range m.Tables {
		if !Excluded[t.Name] && !Derived[t.Name] { // archives of older releases held search_scopes
			inArchive[t.Part] = t
		}
	}
	// an archive that is not verified gives no secret: what its table parts
	// hold (archives of format 1, or edited ones) is taken out as it loads
	var scrub *secretBag
	if !c.Verified {
		scrub = newBag()
	}
	load := func(pick func(TablePart) bool) error {
		return eachPart(path, partSums(m), func(name string, r io.Reader) error {
			t, ok := inArchive[name]
			if !ok || !pick(t) {
				return nil
			}
			return loadTable(ctx, db, tx, t, r, scrub)
		})
	}
	if err := load(func(t TablePart) bool { return !t.Dynamic && !lateTables[t.Name] }); err != nil {
		return err
	}
	if hooks.RebuildTables != nil {
		now, err := db.Tables(ctx)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, t := range now {
			have[t] = true
		}
		if _, err := hooks.RebuildTables(ctx, func(t string) bool { return have[t] }); err != nil {
			return err
		}
	}
	if err := load(func(t TablePart) bool { return t.Dynamic }); err != nil {
		return err
	}
	for name := range lateTables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+store.QuoteIdent(name)); err != nil && static[name] {
			return fmt.Errorf("empty %s: %w", name, err)
		}
	}
	if err := load(func(t TablePart) bool { return lateTables[t.Name] }); err != nil {
		return err
	}
	if pg {
		if err := resetSequences(ctx, tx); err != nil {
			return err
		}
	}
	if scrub != nil {
		c.NotRestored = mergeNames(m.Secrets.Withheld, scrub.names())
	} else if c.secrets == nil {
		c.NotRestored = mergeNames(m.Secrets.Withheld, nil)
	}
	if err := restoreSecrets(ctx, tx, c.NotRestored, c.secrets); err != nil {
		return err
	}
	if hooks.Restored != nil {
		return hooks.Restored(ctx)
	}
	return nil
}

// eachPart calls fn for every part of the archive in order. Each part is
// hashed again as it is read and compared with the manifest's sum (want),
// so an archive changed after Verify read it fails here, inside the
// restore's transaction; a name that repeats is refused.
func eachPart(path string, want map[string]string, fn func(name string, r io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open archive: %w", err)
	}
	defer f.Close()
	seen := partNames{}
	tr := tar.NewReader(bufio.NewReaderSize(f, 1<<20))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return corrupt("%v", err)
		}
		if err := seen.add(h); err != nil {
			return err
		}
		sum, ok := want[h.Name]
		if !ok {
			continue
		}
		hw := &hashWriter{h: sha256.New()}
		if err := fn(h.Name, io.TeeReader(tr, hw)); err != nil {
			return err
		}
		if _, err := io.Copy(hw, tr); err != nil {
			return corrupt("%s: %v", h.Name, err)
		}
		if hex.EncodeToString(hw.h.Sum(nil)) != sum {
			return corrupt("part %s changed after the archive was verified", h.Name)
		}
	}
}

const insertBatch = 200

// loadTable inserts the rows of one table part; scrub, when set, takes the
// secrets out of each row first.
func loadTable(ctx context.Context, db *store.DB, tx *store.Tx, part TablePart, r io.Reader, scrub *secretBag) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return corrupt("%s: %v", part.Part, err)
	}
	dec := json.NewDecoder(gz)
	dec.UseNumber()
	var h header
	if err := dec.Decode(&h); err != nil || h.Table != part.Name {
		return corrupt("%s: bad header", part.Part)
	}
	target, err := db.Columns(ctx, h.Table)
	if err != nil {
		return err
	}
	if len(target) == 0 {
		// a table only the other dialect has (none today): nothing to load it into
		slog.WarnContext(ctx, "restore: table not in this database, skipped", "category", "backup", "table", h.Table)
		return nil
	}
	kinds := map[string]string{}
	for _, c := range target {
		kinds[c.Name] = c.Kind
	}
	var names []string
	keep := make([]bool, len(h.Columns))
	for i, c := range h.Columns {
		if _, ok := kinds[c.Name]; !ok {
			// a dialect-only column (e.g. a derived one): left to its default
			slog.WarnContext(ctx, "restore: column not in this database, skipped", "category", "backup", "table", h.Table, "column", c.Name)
			continue
		}
		keep[i] = true
		names = append(names, store.QuoteIdent(c.Name))
	}
	var scrubRow func([]any) bool
	if scrub != nil {
		scrubRow = scrub.scrubber(h.Table, h.Columns)
	}
	prefix := "INSERT INTO " + store.QuoteIdent(h.Table) + " (" + strings.Join(names, ", ") + ") VALUES "
	row := "(" + store.Placeholders(len(names)) + ")"
	suffix := ""
	if Merged[h.Table] {
		suffix = " ON CONFLICT DO NOTHING" // rows still present are kept as they are
	}
	// SQLite allows 32766 parameters per statement
	per := max(1, min(insertBatch, 30000/max(1, len(names))))
	var args []any
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		q := prefix + strings.Repeat(row+", ", n-1) + row + suffix
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("restore %s: %w", h.Table, err)
		}
		args, n = args[:0], 0
		return nil
	}
	for {
		var vals []any
		if err := dec.Decode(&vals); err == io.EOF {
			break
		} else if err != nil {
			return corrupt("%s: %v", part.Part, err)
		}
		if len(vals) != len(h.Columns) {
			return corrupt("%s: row of %d values for %d columns", part.Part, len(vals), len(h.Columns))
		}
		if scrubRow != nil && !scrubRow(vals) {
			continue
		}
		for i, v := range vals {
			if keep[i] {
				args = append(args, decodeValue(v, kinds[h.Columns[i].Name]))
			}
		}
		if n++; n == per {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// decodeValue turns an archived value into what the target column takes.
func decodeValue(v any, kind string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		if t, ok := x["t"].(string); ok {
			if tt, err := time.Parse(time.RFC3339Nano, t); err == nil {
				if kind == "text" || kind == "json" {
					return tt.UTC().Format(time.RFC3339Nano)
				}
				return tt.UTC()
			}
			return t
		}
		if b, ok := x["b"].(string); ok {
			raw, _ := base64.StdEncoding.DecodeString(b)
			if kind != "bytes" && len(raw) == 16 {
				// a UUID kept as 16 bytes (SQLite item tables) into a uuid column
				return uuid.UUID(raw).String()
			}
			return raw
		}
		raw, _ := json.Marshal(x)
		return string(raw)
	case json.Number:
		switch kind {
		case "bool":
			return x.String() != "0"
		case "int":
			if i, err := x.Int64(); err == nil {
				return i
			}
		case "float":
			if f, err := x.Float64(); err == nil {
				return f
			}
		case "text", "json":
			return x.String()
		}
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case bool:
		if kind == "int" {
			if x {
				return int64(1)
			}
			return int64(0)
		}
		return x
	case string:
		if kind == "int" && len(x) >= 20 && strings.HasSuffix(x, "Z") {
			// an item stamp written as RFC 3339 text (archives of releases
			// whose item tables kept created_at, updated_at as text)
			if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return t.UnixMilli()
			}
		}
		if kind == "bytes" && len(x) == 36 {
			// a uuid (PostgreSQL) into a 16-byte BLOB (SQLite item tables)
			if u, err := uuid.Parse(x); err == nil {
				return u[:]
			}
		}
		if kind == "bool" {
			b, err := strconv.ParseBool(x)
			if err == nil {
				return b
			}
		}
		return x
	}
	return v
}

// resetSequences moves every identity or serial sequence past the restored ids.
func resetSequences(ctx context.Context, tx *store.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval%')`)
	if err != nil {
		return fmt.Errorf("find sequences: %w", err)
	}
	type tc struct{ t, c string }
	var list []tc
	for rows.Next() {
		var x tc
		if err := rows.Scan(&x.t, &x.c); err != nil {
			rows.Close()
			return fmt.Errorf("scan sequence: %w", err)
		}
		list = append(list, x)
	}
	rows.Close()
	for _, x := range list {
		if Excluded[x.t] {
			continue
		}
		q := "SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(" + store.QuoteIdent(x.c) + ") FROM " + store.QuoteIdent(x.t) + "), 0) + 1, false)"
		if _, err := tx.ExecContext(ctx, q, store.QuoteIdent(x.t), x.c); err != nil {
			return fmt.Errorf("reset sequence of %s.%s: %w", x.t, x.c, err)
		}
	}
	return nil
}
