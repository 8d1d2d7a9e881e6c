package search

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/store"
)

type indexStore struct {
	db  *store.DB
	acl *acl.Engine // access chains of entries

	countCap  int    // 0: the package's countCap
	passFirst bool   // tests: the pass and row counts answer, as without bitmaps
	foldHook  func() // tests: runs inside a fold before it removes the rows it read
	// raceHook (tests) runs where index writes and rights changes
	// interleave: "chain" after access chains were read, "rescope" before a
	// rescope reads the entries depending on a resource, "dependents" once
	// it read them
	raceHook  func(ctx context.Context, point string)
	bitCounts atomic.Int64 // counts answered from the bitmaps (tests check the path ran)

	mu      sync.Mutex // guards size and sizedAt (see entries)
	size    float64
	sizedAt time.Time
}

func (s *indexStore) pg() bool { return s.db.Dialect == store.Postgres }

// entry is one stored index row with what the rights filter needs.
type entry struct {
	Doc
	Boundary string   // nearest isolated resource from the entry up to (not including) its container
	Scopes   []string // access-control objects strictly between the entry and its container, up to Boundary
	// Unregistered: the resource of an item or file entry is not (or no
	// longer) in the access-control registry; it gets no entry (see chains)
	Unregistered bool
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// putBatch is the most entries one multi-row statement writes.
const putBatch = 200

// put writes entries (insert or replace) with their scopes.
func (s *indexStore) put(ctx context.Context, es []*entry) error {
	for len(es) > 0 {
		n := min(len(es), putBatch)
		if err := s.putSome(ctx, es[:n]); err != nil {
			return err
		}
		es = es[n:]
	}
	return nil
}

// putSome writes entries: those of resources created in this transaction
// (Doc.Created) have no entry and no scopes to replace, so a batch of them
// only is one plain insert (one more on SQLite for the text).
func (s *indexStore) putSome(ctx context.Context, es []*entry) error {
	var old []string   // entries that may exist
	var files []string // only files and folders have objects between them and their container
	for _, e := range es {
		if e.UpdatedAt.IsZero() {
			e.UpdatedAt = time.Now().UTC()
		}
		if e.Created {
			continue
		}
		old = append(old, e.ID)
		if e.Type == TypeFile {
			files = append(files, e.ID)
		}
	}
	if len(files) > 0 {
		if err := s.dropScopes(ctx, files); err != nil {
			return err
		}
	}
	var err error
	if s.pg() {
		err = s.putPG(ctx, es, len(old) > 0)
	} else {
		err = s.putSQLite(ctx, old, es)
	}
	if err != nil {
		return err
	}
	return s.addScopes(ctx, es)
}

const entryCols = "id, type, node_id, container_id, number, boundary, slug, title, body, updated_at"

func entryArgs(e *entry) []any {
	var num any
	if e.Number > 0 {
		num = e.Number
	}
	slug := e.Slug
	if e.Type == TypeNode {
		slug = ""
	}
	return []any{e.ID, e.Type, e.NodeID, e.ContainerID, num, nullable(e.Boundary), slug, e.Title, e.Body, e.UpdatedAt.UTC()}
}

// putPG inserts entries, replacing existing ones when upsert is set.
func (s *indexStore) putPG(ctx context.Context, es []*entry, upsert bool) error {
	var b strings.Builder
	args := make([]any, 0, len(es)*14)
	b.WriteString("INSERT INTO search_entries (" + entryCols + ", tsv) VALUES ")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		// the russian configuration stems Cyrillic words with the russian
		// Snowball stemmer and Latin ones with the english one (as SQLite's
		// tokens do), so one pass per text serves both languages
		b.WriteString(`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
			search_tsv(setweight(to_tsvector('russian', ?), 'A') || setweight(to_tsvector('russian', ?), 'B')))`)
		args = append(append(args, entryArgs(e)...), pgText(e.Title), pgText(e.Body))
	}
	if upsert {
		b.WriteString(` ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, node_id = EXCLUDED.node_id, container_id = EXCLUDED.container_id,
		number = EXCLUDED.number, boundary = EXCLUDED.boundary, slug = EXCLUDED.slug, title = EXCLUDED.title, body = EXCLUDED.body,
		updated_at = EXCLUDED.updated_at, tsv = EXCLUDED.tsv`)
	}
	// queued: sent with the transaction's next statement (store.Queue)
	return s.db.Queue(ctx, fmt.Sprintf("index %d entries (first %s %s)", len(es), es[0].Type, es[0].ID), b.String(), args...)
}

// putSQLite replaces the entries old (ids) and inserts es.
func (s *indexStore) putSQLite(ctx context.Context, old []string, es []*entry) error {
	if err := s.remove(ctx, old); err != nil {
		return err
	}
	order, err := s.recencySeqs(ctx, es)
	if err != nil {
		return err
	}
	var b strings.Builder
	args := make([]any, 0, len(es)*11)
	b.WriteString("INSERT INTO search_entries (" + entryCols + ", seq) VALUES ")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(append(args, entryArgs(e)...), order[i])
	}
	rows, err := s.db.W(ctx).QueryContext(ctx, b.String()+" RETURNING seq, id", args...)
	if err != nil {
		return fmt.Errorf("index %d entries (first %s %s): %w", len(es), es[0].Type, es[0].ID, err)
	}
	seqs := make(map[string]int64, len(es))
	for rows.Next() {
		var seq int64
		var id string
		if err := rows.Scan(&seq, &id); err != nil {
			rows.Close()
			return fmt.Errorf("index entries: %w", err)
		}
		seqs[id] = seq
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index entries: %w", err)
	}
	b.Reset()
	args = args[:0]
	b.WriteString("INSERT INTO search_fts (rowid, title, body) VALUES ")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?)")
		args = append(args, seqs[e.ID], tokens(e.Title), tokens(e.Body))
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("index text of %d entries: %w", len(es), err)
	}
	return nil
}

// dropScopes forgets the scopes of entries.
func (s *indexStore) dropScopes(ctx context.Context, ids []string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_scopes WHERE entry_id IN "+s.idList(), jsonIDs(ids)); err != nil {
		return fmt.Errorf("drop index scopes: %w", err)
	}
	return nil
}

// addScopes records the scopes of entries (after dropScopes). Two
// transactions saving the same file at once (an edit and its text
// extraction) both insert its scopes: the second keeps the first one's rows.
func (s *indexStore) addScopes(ctx context.Context, es []*entry) error {
	var b strings.Builder
	var args []any
	for _, e := range es {
		for _, o := range e.Scopes {
			if len(args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?)")
			args = append(args, e.ID, o)
		}
	}
	if len(args) == 0 {
		return nil
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO search_scopes (entry_id, object_id) VALUES "+b.String()+" ON CONFLICT DO NOTHING", args...); err != nil {
		return fmt.Errorf("index scopes: %w", err)
	}
	return nil
}

// remove drops entries by id.
func (s *indexStore) remove(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	list := jsonIDs(ids)
	if !s.pg() {
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_entries WHERE id IN "+s.idList()+")", list); err != nil {
			return fmt.Errorf("unindex %d entries: %w", len(ids), err)
		}
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_entries WHERE id IN "+s.idList(), list); err != nil {
		return fmt.Errorf("unindex %d entries: %w", len(ids), err)
	}
	return s.dropScopes(ctx, ids)
}

// removeContainer drops a container's own entry and the entries inside it.
func (s *indexStore) removeContainer(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_scopes WHERE entry_id IN (SELECT id FROM search_entries WHERE container_id = ?)", id); err != nil {
		return fmt.Errorf("unindex container %s: %w", id, err)
	}
	if !s.pg() {
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_entries WHERE container_id = ? OR id = ?)", id, id); err != nil {
			return fmt.Errorf("unindex container %s: %w", id, err)
		}
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_entries WHERE container_id = ? OR id = ?", id, id); err != nil {
		return fmt.Errorf("unindex container %s: %w", id, err)
	}
	return nil
}

// dependents returns the entries whose chain may change when the resource
// id changes inheritance or moves: its own entry and the entries that have
// it in their scope (everything below it up to the next isolated folder).
func (s *indexStore) dependents(ctx context.Context, id string) ([]*entry, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, container_id FROM search_entries WHERE id = ?
		UNION SELECT e.id, e.container_id FROM search_scopes ss JOIN search_entries e ON e.id = ss.entry_id WHERE ss.object_id = ?`, id, id)
	if err != nil {
		return nil, fmt.Errorf("entries under %s: %w", id, err)
	}
	defer rows.Close()
	var out []*entry
	for rows.Next() {
		e := &entry{}
		if err := rows.Scan(&e.ID, &e.ContainerID); err != nil {
			return nil, fmt.Errorf("entries under %s: %w", id, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// rescope stores the recomputed boundary and scopes of entries.
func (s *indexStore) rescope(ctx context.Context, es []*entry) error {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
		if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE search_entries SET boundary = ? WHERE id = ?", nullable(e.Boundary), e.ID); err != nil {
			return fmt.Errorf("rescope %s: %w", e.ID, err)
		}
	}
	if err := s.dropScopes(ctx, ids); err != nil {
		return err
	}
	return s.addScopes(ctx, es)
}

// setSlug renames the container slug of a container's entries (its own and
// those inside it), so their paths follow a renamed list, library, page or survey.
func (s *indexStore) setSlug(ctx context.Context, containerID, slug string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE search_entries SET slug = ? WHERE container_id = ? AND type <> ?", slug, containerID, TypeNode); err != nil {
		return fmt.Errorf("rename entries of %s: %w", containerID, err)
	}
	return nil
}

// clear empties the index and returns how many entries it held.
func (s *indexStore) clear(ctx context.Context) (int, error) {
	var n int
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.db.W(ctx).QueryRowContext(ctx, "SELECT count(*) FROM search_entries").Scan(&n); err != nil {
			return fmt.Errorf("count index: %w", err)
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_scopes"); err != nil {
			return fmt.Errorf("clear index scopes: %w", err)
		}
		if !s.pg() {
			if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_fts"); err != nil {
				return fmt.Errorf("clear index text: %w", err)
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_entries"); err != nil {
			return fmt.Errorf("clear index: %w", err)
		}
		if s.pg() { // the count bitmaps, and the pending numbers the deletion just listed
			for _, t := range []string{"search_bits", "search_bits_pending"} {
				if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM "+t); err != nil {
					return fmt.Errorf("clear index bitmaps: %w", err)
				}
			}
		}
		return nil
	})
	return n, err
}

// Stats is the state of the index for the dashboard.
type Stats struct {
	Entries     int        `json:"entries"`
	LastCrawlAt *time.Time `json:"lastCrawlAt"`
}

func (s *indexStore) stats(ctx context.Context) (Stats, error) {
	var st Stats
	var last sql.NullTime
	// a left join: a missing state row (a restore before the fix) reads as never crawled
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT (SELECT count(*) FROM search_entries), (SELECT last_crawl_at FROM search_state WHERE id = 1)").Scan(&st.Entries, &last)
	if err != nil {
		return st, fmt.Errorf("index stats: %w", err)
	}
	if last.Valid {
		t := last.Time.UTC()
		st.LastCrawlAt = &t
	}
	return st, nil
}

func (s *indexStore) checkpoint(ctx context.Context) (string, error) {
	var cp string
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT checkpoint FROM search_state WHERE id = 1").Scan(&cp)
	if store.IsNotFound(err) {
		return "", nil // no state row: crawl from the start (setCheckpoint creates it)
	}
	if err != nil {
		return "", fmt.Errorf("crawl checkpoint: %w", err)
	}
	return cp, nil
}

func (s *indexStore) setCheckpoint(ctx context.Context, cp string, finished bool) error {
	q := "INSERT INTO search_state (id, checkpoint) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint"
	args := []any{cp}
	if finished {
		q = "INSERT INTO search_state (id, checkpoint, last_crawl_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, last_crawl_at = EXCLUDED.last_crawl_at"
		args = append(args, time.Now().UTC())
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("save crawl checkpoint: %w", err)
	}
	return nil
}

// idList is a subquery yielding the ids of a JSON array parameter.
func (s *indexStore) idList() string {
	if s.pg() {
		return "(SELECT CAST(jsonb_array_elements_text(CAST(? AS jsonb)) AS uuid))"
	}
	return "(SELECT value FROM json_each(?))"
}

func jsonIDs(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	b, _ := json.Marshal(ids)
	return string(b)
}
