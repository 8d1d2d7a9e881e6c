package search

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/store"
)

type indexStore struct{ db *store.DB }

func (s *indexStore) pg() bool { return s.db.Dialect == store.Postgres }

// entry is one stored index row with what the rights filter needs.
type entry struct {
	Doc
	Path     string
	Boundary string
}

// boundaryOf walks the access-control chain from id up to the container and
// returns the nearest isolated resource on the way (empty when none).
func (s *indexStore) boundaryOf(ctx context.Context, id, container string) (string, error) {
	cur := id
	for depth := 0; depth < 64 && cur != "" && cur != container; depth++ {
		var parent sql.NullString
		var inherits bool
		err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT parent_id, inherits FROM acl_objects WHERE id = ?", cur).Scan(&parent, &inherits)
		if store.IsNotFound(err) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("access chain of %s: %w", id, err)
		}
		if !inherits {
			return cur, nil
		}
		cur = parent.String
	}
	return "", nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *indexStore) put(ctx context.Context, e entry) error {
	var num any
	if e.Number > 0 {
		num = e.Number
	}
	title, body := fold(e.Title), fold(e.Body)
	if s.pg() {
		_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO search_entries (id, type, node_id, container_id, number, boundary, title, body, path, updated_at, tsv)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
				setweight(to_tsvector('russian', ?), 'A') || setweight(to_tsvector('english', ?), 'A') ||
				setweight(to_tsvector('russian', ?), 'B') || setweight(to_tsvector('english', ?), 'B'))
			ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, node_id = EXCLUDED.node_id, container_id = EXCLUDED.container_id,
				number = EXCLUDED.number, boundary = EXCLUDED.boundary, title = EXCLUDED.title, body = EXCLUDED.body,
				path = EXCLUDED.path, updated_at = EXCLUDED.updated_at, tsv = EXCLUDED.tsv`,
			e.ID, e.Type, e.NodeID, e.ContainerID, num, nullable(e.Boundary), e.Title, e.Body, e.Path, e.UpdatedAt.UTC(),
			title, title, body, body)
		if err != nil {
			return fmt.Errorf("index %s %s: %w", e.Type, e.ID, err)
		}
		return nil
	}
	if err := s.remove(ctx, []string{e.ID}); err != nil {
		return err
	}
	var seq int64
	err := s.db.W(ctx).QueryRowContext(ctx, `INSERT INTO search_entries (id, type, node_id, container_id, number, boundary, title, body, path, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		e.ID, e.Type, e.NodeID, e.ContainerID, num, nullable(e.Boundary), e.Title, e.Body, e.Path, e.UpdatedAt.UTC()).Scan(&seq)
	if err != nil {
		return fmt.Errorf("index %s %s: %w", e.Type, e.ID, err)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO search_fts (rowid, title, body) VALUES (?, ?, ?)",
		seq, tokens(title), tokens(body)); err != nil {
		return fmt.Errorf("index text of %s %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// remove drops entries by id.
func (s *indexStore) remove(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if !s.pg() {
			if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_fts WHERE rowid IN (SELECT seq FROM search_entries WHERE id = ?)", id); err != nil {
				return fmt.Errorf("unindex %s: %w", id, err)
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_entries WHERE id = ?", id); err != nil {
			return fmt.Errorf("unindex %s: %w", id, err)
		}
	}
	return nil
}

// removeContainer drops a container's own entry and the entries inside it.
func (s *indexStore) removeContainer(ctx context.Context, id string) error {
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

// entriesUnder returns id and container of the entries whose boundary may
// depend on the resource id: the entry itself and, for a folder, every entry
// of its container.
func (s *indexStore) entriesUnder(ctx context.Context, id string) ([][2]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, container_id FROM search_entries
		WHERE id = ? OR container_id IN (SELECT container_id FROM search_entries WHERE id = ? AND type = 'file')`, id, id)
	if err != nil {
		return nil, fmt.Errorf("entries under %s: %w", id, err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return nil, fmt.Errorf("entries under %s: %w", id, err)
		}
		out = append(out, [2]string{a, b})
	}
	return out, rows.Err()
}

func (s *indexStore) setBoundary(ctx context.Context, id, boundary string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE search_entries SET boundary = ? WHERE id = ?", nullable(boundary), id); err != nil {
		return fmt.Errorf("rescope %s: %w", id, err)
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
		if !s.pg() {
			if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_fts"); err != nil {
				return fmt.Errorf("clear index text: %w", err)
			}
		}
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM search_entries"); err != nil {
			return fmt.Errorf("clear index: %w", err)
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
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT (SELECT count(*) FROM search_entries), last_crawl_at FROM search_state WHERE id = 1").Scan(&st.Entries, &last)
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
	if err != nil {
		return "", fmt.Errorf("crawl checkpoint: %w", err)
	}
	return cp, nil
}

func (s *indexStore) setCheckpoint(ctx context.Context, cp string, finished bool) error {
	q := "UPDATE search_state SET checkpoint = ? WHERE id = 1"
	args := []any{cp}
	if finished {
		q = "UPDATE search_state SET checkpoint = ?, last_crawl_at = ? WHERE id = 1"
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

// rights is the caller's view in SQL terms; nil for administrators.
type rights struct {
	principals []string // the user and its groups
	nodes      []string // nodes the caller can view
	minLevel   int
}

// rightsFilter keeps the entries the caller can view: an entry is visible
// when the caller holds a grant on the entry itself; or, under an isolated
// boundary, on the boundary; or else when its container is visible (a node
// the caller can view, a container inheriting from such a node, or a
// container with a grant of the caller).
func (s *indexStore) rightsFilter(r *rights) (string, []any) {
	ids := s.idList()
	grants := "(SELECT ae.resource_id FROM acl_entries ae WHERE ae.level >= ? AND ae.principal_id IN " + ids + ")"
	p, n := jsonIDs(r.principals), jsonIDs(r.nodes)
	sqlText := ` AND (e.id IN ` + grants + `
		OR (e.boundary IS NOT NULL AND e.boundary IN ` + grants + `)
		OR (e.boundary IS NULL AND (e.container_id IN ` + ids + ` OR e.container_id IN ` + grants + `
			OR e.container_id IN (SELECT o.id FROM acl_objects o WHERE o.inherits = ? AND o.parent_id IN ` + ids + `))))`
	return sqlText, []any{r.minLevel, p, r.minLevel, p, n, r.minLevel, p, true, n}
}

// query is a parsed search request.
type query struct {
	terms  []term
	typ    string
	nodeID string
	limit  int
	offset int
	rights *rights
}

// hit is one matching entry with its score.
type hit struct {
	entry
	Score float64
}

func (s *indexStore) search(ctx context.Context, q query) ([]hit, int, error) {
	var from, score string
	var args []any
	if s.pg() {
		var parts []string
		for _, t := range q.terms {
			switch {
			case t.prefix:
				parts = append(parts, "to_tsquery('simple', ?)")
				args = append(args, t.words[0]+":*")
			case t.phrase:
				parts = append(parts, "(phraseto_tsquery('russian', ?) || phraseto_tsquery('english', ?))")
				ph := strings.Join(t.words, " ")
				args = append(args, ph, ph)
			default:
				parts = append(parts, "(plainto_tsquery('russian', ?) || plainto_tsquery('english', ?))")
				args = append(args, t.words[0], t.words[0])
			}
		}
		from = "FROM search_entries e, (SELECT " + strings.Join(parts, " && ") + " AS tq) qq WHERE e.tsv @@ qq.tq"
		score = "ts_rank(e.tsv, qq.tq)"
	} else {
		from = "FROM search_fts JOIN search_entries e ON e.seq = search_fts.rowid WHERE search_fts MATCH ?"
		args = append(args, ftsMatch(q.terms))
		score = "-bm25(search_fts, 10.0, 1.0)"
	}
	where := ""
	if q.typ != "" {
		where += " AND e.type = ?"
		args = append(args, q.typ)
	}
	if q.nodeID != "" {
		where += ` AND e.node_id IN (WITH RECURSIVE sub(id, depth) AS (SELECT id, 0 FROM nodes WHERE id = ?
			UNION ALL SELECT n.id, sub.depth + 1 FROM nodes n JOIN sub ON n.parent_id = sub.id WHERE sub.depth < 64) SELECT id FROM sub)`
		args = append(args, q.nodeID)
	}
	if q.rights != nil {
		f, a := s.rightsFilter(q.rights)
		where += f
		args = append(args, a...)
	}
	// the score is computed in a subquery: SQLite's bm25 cannot sit beside a window function
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, type, node_id, container_id, number, title, body, path, updated_at, score, count(*) OVER ()
		FROM (SELECT e.id, e.type, e.node_id, e.container_id, COALESCE(e.number, 0) AS number, e.title, e.body, e.path, e.updated_at,
		`+score+` AS score `+from+where+`) m ORDER BY score DESC, updated_at DESC, id LIMIT ? OFFSET ?`,
		append(args, q.limit, q.offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []hit
	total := 0
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.ID, &h.Type, &h.NodeID, &h.ContainerID, &h.Number, &h.Title, &h.Body, &h.Path, &h.UpdatedAt, &h.Score, &total); err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	if len(out) == 0 && q.offset > 0 {
		err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) "+from+where, args...).Scan(&total)
		if err != nil {
			return nil, 0, fmt.Errorf("count search: %w", err)
		}
	}
	return out, total, nil
}
