package lists

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"coreportal/internal/field"
	"coreportal/internal/query"
	"coreportal/internal/store"
)

// Ad-hoc indexes: nobody has to plan an index for a sort or a filter. When a
// listing of a list with at least adhocMinItems items sorts or filters on a
// column that no index serves, the index is built in the background (one build
// at a time per process; PostgreSQL CREATE INDEX CONCURRENTLY, so writes go on)
// and used by the following requests:
//   - the first sort key: an index in exactly the listing order
//     ((col IS NULL), col ASC|DESC, id DESC), so a page is a walk that stops
//     after offset+limit rows;
//   - eq, in, ranges and startsWith on text, number, date, datetime and
//     boolean fields: a B-tree on the compared column;
//   - text contains with at least three characters on PostgreSQL: a pg_trgm
//     GIN index on the lower-cased column (CREATE EXTENSION IF NOT EXISTS
//     pg_trgm; without the extension the condition stays a scan).
//
// Every ad-hoc index is recorded in list_adhoc_indexes with the time it was
// last wanted (written at most once an hour) and dropped after adhocUnused
// without use, so columns sorted once do not tax item writes for ever. Indexes
// are built on first use rather than for every column at creation because
// each B-tree costs every item write (10 fields = 10 more indexes to update)
// while most columns are never sorted or filtered.

const (
	adhocMinItems = 1000
	adhocUnused   = 30 * 24 * time.Hour
	adhocTouch    = time.Hour
	adhocBuild    = 30 * time.Minute // longest build before giving up
	// adhocMaxPerList caps the ad-hoc indexes of one list: any reader can ask
	// for new sort and filter combinations, and each index taxes every write.
	adhocMaxPerList = 16
)

// isAdhocIndex reports whether an index name of table hex is an ad-hoc one.
func isAdhocIndex(hex, name string) bool {
	if strings.HasPrefix(name, "ixt"+hex+"__") || strings.HasPrefix(name, "ixd"+hex+"__") {
		return true
	}
	if !strings.HasPrefix(name, "ix"+hex+"_") {
		return false
	}
	for _, s := range adhocSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// adhocCount is the number of ad-hoc indexes of a table present or being
// built (a.mu held).
func (a *adhocIndexes) adhocCount(m map[string]bool, table string) int {
	hex := strings.TrimPrefix(table, "li")
	n := 0
	for name := range m {
		if isAdhocIndex(hex, name) {
			n++
		}
	}
	for name := range a.building {
		if !m[name] && isAdhocIndex(hex, name) {
			n++
		}
	}
	return n
}

type adhocIndexes struct {
	db       *store.DB
	minItems int
	mu       sync.Mutex
	known    map[string]map[string]bool // table -> index names present
	touched  map[string]time.Time       // ad-hoc index -> last recorded use
	building map[string]bool
	trgm     int // 0 unknown, 1 available, -1 unavailable
	swept    time.Time
	run      sync.Mutex // one build or sweep at a time
	wg       sync.WaitGroup
}

// One manager per database: services of the same process (the bench makes
// one per request) must not race each other's builds of the same index.
var (
	adhocMu  sync.Mutex
	adhocFor = map[*store.DB]*adhocIndexes{}
)

func newAdhocIndexes(db *store.DB) *adhocIndexes {
	adhocMu.Lock()
	defer adhocMu.Unlock()
	if a, ok := adhocFor[db]; ok {
		return a
	}
	a := &adhocIndexes{db: db, minItems: adhocMinItems, known: map[string]map[string]bool{},
		touched: map[string]time.Time{}, building: map[string]bool{}}
	adhocFor[db] = a
	return a
}

// adhocIndex is one wanted index.
type adhocIndex struct {
	name string
	ddl  func(concurrently bool) string
	// alt are names of indexes (made for views) that serve the same purpose
	alt  []string
	trgm bool
	// composite is a sort index with filter columns trailing
	composite bool
}

func sortIndexWanted(l *List, col string, desc bool) adhocIndex {
	dir, suffix := "ASC", "_sa"
	if desc {
		dir, suffix = "DESC", "_sd"
	}
	c, t := indexKey(col), safeIdent(l.Table)
	name := safeIdent(indexName(l, col) + "_x" + suffix[2:])
	return adhocIndex{name: name, alt: []string{indexName(l, col) + suffix},
		ddl: func(conc bool) string {
			return "CREATE INDEX " + concurrently(conc) + "IF NOT EXISTS " + name + " ON " + t + " ((" + c + " IS NULL), " + c + " " + dir + ", id DESC)"
		}}
}

func filterIndexWanted(l *List, col string) adhocIndex {
	c, t := indexKey(col), safeIdent(l.Table)
	name := safeIdent(indexName(l, col) + "_xf")
	return adhocIndex{name: name, alt: []string{indexName(l, col)},
		ddl: func(conc bool) string {
			return "CREATE INDEX " + concurrently(conc) + "IF NOT EXISTS " + name + " ON " + t + " (" + c + ")"
		}}
}

func trigramIndexWanted(l *List, col string) adhocIndex {
	c, t := indexKey(col), safeIdent(l.Table)
	name := safeIdent(indexName(l, col) + "_xt")
	return adhocIndex{name: name, trgm: true,
		ddl: func(conc bool) string {
			return "CREATE INDEX " + concurrently(conc) + "IF NOT EXISTS " + name + " ON " + t + " USING gin (" + c + " gin_trgm_ops)"
		}}
}

func concurrently(b bool) string {
	if b {
		return "CONCURRENTLY "
	}
	return ""
}

// compositeWanted are a view's two indexes made for an ad-hoc AND filter with
// a sort: the sort index with the filter columns trailing, so that the page
// is an index-only walk that stops after offset+limit matches, and (two or
// more columns) a covering index of the filter columns for the count. Names
// list the columns after "__" (dropColumns relies on it); combinations too
// long for an identifier get none.
func compositeWanted(l *List, sortCol string, desc bool, fcols []string, pg bool) []adhocIndex {
	fcols = slices.DeleteFunc(slices.Clone(fcols), func(c string) bool { return c == sortCol })
	if len(fcols) == 0 || sortCol == "id" {
		return nil
	}
	fcols = fcols[:min(len(fcols), maxFilterIndexColumns)]
	t, hex := safeIdent(l.Table), strings.TrimPrefix(l.Table, "li")
	dir, suffix := "ASC", "_sa"
	if desc {
		dir, suffix = "DESC", "_sd"
	}
	var out []adhocIndex
	sortName := "ixt" + hex + "__" + keyToken(sortCol) + suffix + "__" + keyTokens(fcols)
	if identRE.MatchString(sortName) {
		c := indexKey(sortCol)
		keys := "(" + c + " IS NULL), " + c + " " + dir + ", id DESC, " + filterKeys(pg, fcols)
		out = append(out, adhocIndex{name: sortName, composite: true,
			alt: []string{"ixs" + hex + "__" + keyToken(sortCol) + suffix + "__" + keyTokens(fcols)},
			ddl: func(conc bool) string {
				return "CREATE INDEX " + concurrently(conc) + "IF NOT EXISTS " + sortName + " ON " + t + " (" + keys + ")"
			}})
	}
	filterName := "ixd" + hex + "__" + keyTokens(fcols)
	if len(fcols) >= 2 && identRE.MatchString(filterName) {
		cols := filterKeys(pg, fcols)
		out = append(out, adhocIndex{name: filterName, alt: []string{"ixc" + hex + "__" + keyTokens(fcols)},
			ddl: func(conc bool) string {
				return "CREATE INDEX " + concurrently(conc) + "IF NOT EXISTS " + filterName + " ON " + t + " (" + cols + ")"
			}})
	}
	return out
}

// byDisplay reports whether listings order a field by a display resolved in
// SQL (person, lookup): no index on the item table serves that order.
func byDisplay(f *field.Def) bool { return f.Type == field.Person || f.Type == field.Lookup }

// adhocSuffixes are the name suffixes of ad-hoc indexes (dropColumns drops them).
var adhocSuffixes = []string{"_xa", "_xd", "_xf", "_xt"}

// wanted lists the indexes that would serve a listing's first sort key and
// the user's filter conditions (a view's own columns are indexed when it is saved).
func wantedIndexes(sc *schema, keys []query.SortKey, user query.FilterSpec, pg bool) []adhocIndex {
	var out []adhocIndex
	if len(keys) > 0 {
		if f, ok := sc.resolve(keys[0].Column); ok && !byDisplay(f) {
			if col := field.MustOf(f).SortExpr(f); col != "id" {
				out = append(out, sortIndexWanted(sc.list, col, keys[0].Direction == "desc"))
			}
		}
	}
	if len(keys) > 0 && user.Logic != "or" {
		if f, ok := sc.resolve(keys[0].Column); ok && !byDisplay(f) {
			out = append(out, compositeWanted(sc.list, field.MustOf(f).SortExpr(f), keys[0].Direction == "desc", filterColumns(sc, user), pg)...)
		}
	}
	for _, c := range user.Conditions {
		f, ok := sc.resolve(c.Column)
		if !ok || f.Col == 0 && f.ColName == "" {
			continue
		}
		switch f.Type {
		case field.Text, field.MultilineText, field.HTMLText, field.Number, field.Date, field.DateTime, field.Boolean:
		default:
			continue
		}
		col := field.MustOf(f).SortExpr(f)
		switch c.Operator {
		case field.OpEq, field.OpIn, field.OpGt, field.OpGte, field.OpLt, field.OpLte, field.OpStartsWith:
			out = append(out, filterIndexWanted(sc.list, col))
		case field.OpContains:
			if s, ok := c.Value.(string); pg && ok && utf8.RuneCountInString(strings.TrimSpace(s)) >= 3 && (col == f.CI() || col == field.Fold(f.Column())) {
				out = append(out, trigramIndexWanted(sc.list, col))
			}
		}
	}
	return out
}

// present loads the index names of a table once.
func (a *adhocIndexes) present(ctx context.Context, table string) (map[string]bool, error) {
	a.mu.Lock()
	m, ok := a.known[table]
	a.mu.Unlock()
	if ok {
		return m, nil
	}
	// PostgreSQL: valid indexes only (a failed concurrent build leaves an invalid one)
	q := `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
		WHERE t.relname = ? AND t.relnamespace = current_schema()::regnamespace AND i.indisvalid`
	if a.db.Dialect == store.SQLite {
		q = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
	}
	rows, err := a.db.Q(ctx).QueryContext(ctx, q, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m = map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		m[n] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	if old, ok := a.known[table]; ok {
		m = old
	} else {
		a.known[table] = m
	}
	a.mu.Unlock()
	return m, nil
}

// forget drops what is known of a table (its columns or the table changed).
func (a *adhocIndexes) forget(table string) {
	a.mu.Lock()
	delete(a.known, table)
	a.mu.Unlock()
}

// has reports whether an index serving w exists.
func (a *adhocIndexes) has(ctx context.Context, table string, w adhocIndex) bool {
	return a.which(ctx, table, w) != ""
}

// which is the name of an existing index serving w ("" when none).
func (a *adhocIndexes) which(ctx context.Context, table string, w adhocIndex) string {
	m, err := a.present(ctx, table)
	if err != nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if w.name != "" && m[w.name] {
		return w.name
	}
	for _, n := range w.alt {
		if m[n] {
			return n
		}
	}
	return ""
}

// want builds the missing indexes in the background and records the use of
// existing ad-hoc ones. It never fails the listing.
func (a *adhocIndexes) want(ctx context.Context, l *List, items int, ws []adhocIndex) {
	if len(ws) == 0 || items < a.minItems || store.InTransaction(ctx) {
		return
	}
	m, err := a.present(ctx, l.Table)
	if err != nil {
		slog.DebugContext(ctx, "ad-hoc indexes", "err", err)
		return
	}
	now := time.Now()
	var build []adhocIndex
	var touch []string
	a.mu.Lock()
	room := adhocMaxPerList - a.adhocCount(m, l.Table)
	for _, w := range ws {
		switch {
		case m[w.name]:
			if now.Sub(a.touched[w.name]) > adhocTouch {
				a.touched[w.name] = now
				touch = append(touch, w.name)
			}
		case a.building[w.name] || w.trgm && a.trgm < 0:
		default:
			alt := false
			for _, n := range w.alt {
				alt = alt || m[n]
			}
			if !alt && room > 0 {
				room--
				a.building[w.name] = true
				build = append(build, w)
			}
		}
	}
	sweep := now.Sub(a.swept) > 24*time.Hour
	if sweep {
		a.swept = now
	}
	a.mu.Unlock()
	listID, table := l.ID, l.Table
	for _, name := range touch {
		a.background(func() { a.record(name, listID, now) })
	}
	for _, w := range build {
		a.background(func() { a.build(listID, table, w) })
	}
	if sweep {
		a.background(a.sweep)
	}
}

// background runs f after the work queued before it (builds would otherwise
// compete for the same cores and the SQLite writer).
func (a *adhocIndexes) background(f func()) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.run.Lock()
		defer a.run.Unlock()
		f()
	}()
}

// wait blocks until queued work is done (tests).
func (a *adhocIndexes) wait() { a.wg.Wait() }

func (a *adhocIndexes) build(listID, table string, w adhocIndex) {
	ctx, cancel := context.WithTimeout(context.Background(), adhocBuild)
	defer cancel()
	defer func() {
		a.mu.Lock()
		delete(a.building, w.name)
		a.mu.Unlock()
	}()
	pg := a.db.Dialect == store.Postgres
	if w.trgm && !a.trigramReady(ctx) {
		return
	}
	start := time.Now()
	if pg { // an invalid leftover of a failed concurrent build would make IF NOT EXISTS a no-op
		var invalid bool
		err := a.db.Q(ctx).QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid)`, w.name).Scan(&invalid)
		if err == nil && invalid {
			_, _ = a.db.W(ctx).ExecContext(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+safeIdent(w.name))
		}
	}
	if _, err := a.db.W(ctx).ExecContext(ctx, w.ddl(pg)); err != nil {
		slog.WarnContext(ctx, "ad-hoc index", "index", w.name, "err", err)
		return
	}
	a.record(w.name, listID, time.Now())
	a.mu.Lock()
	if m, ok := a.known[table]; ok {
		m[w.name] = true
	}
	a.touched[w.name] = time.Now()
	a.mu.Unlock()
	slog.InfoContext(ctx, "ad-hoc index built", "index", w.name, "ms", time.Since(start).Milliseconds())
}

// trigramReady installs pg_trgm once; without it contains stays a scan.
func (a *adhocIndexes) trigramReady(ctx context.Context) bool {
	a.mu.Lock()
	st := a.trgm
	a.mu.Unlock()
	if st != 0 {
		return st > 0
	}
	st = 1
	if _, err := a.db.W(ctx).ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_trgm"); err != nil {
		slog.WarnContext(ctx, "pg_trgm is not available: text contains is not indexed", "err", err)
		st = -1
	}
	a.mu.Lock()
	a.trgm = st
	a.mu.Unlock()
	return st > 0
}

func (a *adhocIndexes) record(name, listID string, at time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := a.db.W(ctx).ExecContext(ctx, `INSERT INTO list_adhoc_indexes (name, list_id, last_used_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET last_used_at = excluded.last_used_at`, name, listID, at.UTC())
	if err != nil {
		slog.WarnContext(ctx, "record ad-hoc index use", "index", name, "err", err)
	}
}

// sweep drops ad-hoc indexes unused for adhocUnused.
func (a *adhocIndexes) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), adhocBuild)
	defer cancel()
	rows, err := a.db.Q(ctx).QueryContext(ctx, "SELECT name FROM list_adhoc_indexes WHERE last_used_at < ?", time.Now().Add(-adhocUnused).UTC())
	if err != nil {
		slog.WarnContext(ctx, "sweep ad-hoc indexes", "err", err)
		return
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil && identRE.MatchString(n) {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, n := range names {
		if _, err := a.db.W(ctx).ExecContext(ctx, "DROP INDEX IF EXISTS "+safeIdent(n)); err != nil {
			slog.WarnContext(ctx, "drop unused ad-hoc index", "index", n, "err", err)
			continue
		}
		if _, err := a.db.W(ctx).ExecContext(ctx, "DELETE FROM list_adhoc_indexes WHERE name = ?", n); err != nil {
			slog.WarnContext(ctx, "drop unused ad-hoc index", "index", n, "err", err)
		}
		slog.InfoContext(ctx, "unused ad-hoc index dropped", "index", n)
	}
	a.mu.Lock()
	a.known = map[string]map[string]bool{}
	a.mu.Unlock()
}
