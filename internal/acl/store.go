package acl

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// chainCTE walks from one object up its parents, stopping after an isolated
// object (inherits=false): an isolated resource is a boundary.
const chainCTE = `WITH RECURSIVE chain(id, parent_id, inherits, depth) AS (
	SELECT id, parent_id, inherits, 0 FROM acl_objects WHERE id = ?
	UNION ALL
	SELECT o.id, o.parent_id, o.inherits, c.depth + 1 FROM acl_objects o JOIN chain c ON o.id = c.parent_id
	WHERE c.inherits = ? AND c.depth < ` + "64" + `)
`

// principalMatch selects records of a user or of any group the user belongs to
// (both portal and domain-linked groups). Args: userID, userID.
const principalMatch = `((e.principal_type = 'user' AND e.principal_id = ?)
	OR (e.principal_type = 'group' AND e.principal_id IN (SELECT gm.group_id FROM group_members gm WHERE gm.user_id = ?)))`

type aclStore struct{ db *store.DB }

// effective returns whether the resource exists and the user's maximum level along its chain.
func (s *aclStore) effective(ctx context.Context, resourceID, userID string) (exists bool, lvl Level, err error) {
	var n int
	var max sql.NullInt64
	err = s.db.Q(ctx).QueryRowContext(ctx, chainCTE+`SELECT (SELECT count(*) FROM chain),
		(SELECT MAX(e.level) FROM acl_entries e JOIN chain c ON e.resource_id = c.id WHERE `+principalMatch+`)`,
		resourceID, true, userID, userID).Scan(&n, &max)
	if err != nil {
		return false, None, fmt.Errorf("effective level on %s: %w", resourceID, err)
	}
	return n > 0, Level(max.Int64), nil
}

func (s *aclStore) exists(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM acl_objects WHERE id = ?", id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up resource %s: %w", id, err)
	}
	return n > 0, nil
}

// object returns type, parent and inherits of a registered resource.
func (s *aclStore) object(ctx context.Context, id string) (t Type, parent string, inherits bool, err error) {
	var p sql.NullString
	err = s.db.Q(ctx).QueryRowContext(ctx, "SELECT type, parent_id, inherits FROM acl_objects WHERE id = ?", id).Scan(&t, &p, &inherits)
	if err != nil {
		return "", "", false, fmt.Errorf("load resource %s: %w", id, err)
	}
	return t, p.String, inherits, nil
}

func (s *aclStore) principals(ctx context.Context, userID string) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT group_id FROM group_members WHERE user_id = ? ORDER BY group_id", userID)
	if err != nil {
		return nil, fmt.Errorf("groups of %s: %w", userID, err)
	}
	defer rows.Close()
	out := []string{userID}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("groups of %s: %w", userID, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

func (s *aclStore) register(ctx context.Context, ref Ref, parent string) error {
	var p any
	if parent != "" {
		p = parent
	}
	// queued: sent with the transaction's next statement (store.Queue)
	return s.db.Queue(ctx, "register "+string(ref.Type)+" "+ref.ID,
		"INSERT INTO acl_objects (id, type, parent_id, inherits) VALUES (?, ?, ?, ?)", ref.ID, string(ref.Type), p, true)
}

// registerAll inserts many objects of one parent, 2,000 per statement.
func (s *aclStore) registerAll(ctx context.Context, refs []Ref, parent string) error {
	var p any
	if parent != "" {
		p = parent
	}
	for len(refs) > 0 {
		n := min(len(refs), 2000)
		args := make([]any, 0, n*4)
		for _, r := range refs[:n] {
			args = append(args, r.ID, string(r.Type), p, true)
		}
		// queued: sent with the transaction's next statement (store.Queue)
		if err := s.db.Queue(ctx, fmt.Sprintf("register %d objects (first %s)", n, refs[0].ID),
			"INSERT INTO acl_objects (id, type, parent_id, inherits) VALUES "+store.Tuples(n, 4), args...); err != nil {
			return err
		}
		refs = refs[n:]
	}
	return nil
}

func (s *aclStore) move(ctx context.Context, id, parent string) (bool, error) {
	var p any
	if parent != "" {
		p = parent
	}
	res, err := s.db.W(ctx).ExecContext(ctx, "UPDATE acl_objects SET parent_id = ? WHERE id = ?", p, id)
	if err != nil {
		return false, fmt.Errorf("move %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func (s *aclStore) forget(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	ph := store.Placeholders(len(ids))
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM acl_entries WHERE resource_id IN ("+ph+")", args...); err != nil {
		return fmt.Errorf("forget records: %w", err)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM acl_objects WHERE id IN ("+ph+")", args...); err != nil {
		return fmt.Errorf("forget resources: %w", err)
	}
	return nil
}

func (s *aclStore) setInherits(ctx context.Context, id string, inherit bool) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE acl_objects SET inherits = ? WHERE id = ?", inherit, id)
	if err != nil {
		return fmt.Errorf("set inherits of %s: %w", id, err)
	}
	return nil
}

// grant is one principal's level.
type grant struct {
	PrincipalType string
	PrincipalID   string
	Level         Level
}

// chainGrants returns, per principal with any record along the chain of id,
// the maximum level found (the principal's effective right there).
func (s *aclStore) chainGrants(ctx context.Context, id string) ([]grant, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, chainCTE+`SELECT e.principal_type, e.principal_id, MAX(e.level)
		FROM acl_entries e JOIN chain c ON e.resource_id = c.id GROUP BY e.principal_type, e.principal_id`, id, true)
	if err != nil {
		return nil, fmt.Errorf("grants along the chain of %s: %w", id, err)
	}
	defer rows.Close()
	var out []grant
	for rows.Next() {
		var g grant
		if err := rows.Scan(&g.PrincipalType, &g.PrincipalID, &g.Level); err != nil {
			return nil, fmt.Errorf("grants along the chain of %s: %w", id, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// upsert writes a record; keepMax keeps an existing higher level.
func (s *aclStore) upsert(ctx context.Context, ref Ref, g grant, keepMax bool) (string, error) {
	var id string
	var cur Level
	err := s.db.W(ctx).QueryRowContext(ctx, "SELECT id, level FROM acl_entries WHERE resource_id = ? AND principal_type = ? AND principal_id = ?",
		ref.ID, g.PrincipalType, g.PrincipalID).Scan(&id, &cur)
	switch {
	case store.IsNotFound(err):
		id = uuid.NewString()
		_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO acl_entries (id, resource_type, resource_id, principal_type, principal_id, level, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, string(ref.Type), ref.ID, g.PrincipalType, g.PrincipalID, int(g.Level), time.Now().UTC())
		if err != nil {
			return "", fmt.Errorf("insert record: %w", s.db.Translate(err))
		}
		return id, nil
	case err != nil:
		return "", fmt.Errorf("look up record: %w", err)
	}
	if keepMax && cur >= g.Level {
		return id, nil
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE acl_entries SET level = ? WHERE id = ?", int(g.Level), id); err != nil {
		return "", fmt.Errorf("update record: %w", err)
	}
	return id, nil
}

func (s *aclStore) deleteEntriesOf(ctx context.Context, resourceID string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM acl_entries WHERE resource_id = ?", resourceID); err != nil {
		return fmt.Errorf("delete records of %s: %w", resourceID, err)
	}
	return nil
}

// childIDs returns ids of children of parent of type t; with isolatedOnly, only
// those with inherits=false on which the user has no record (the deny list).
func (s *aclStore) denied(ctx context.Context, parent string, t Type, userID string) ([]string, error) {
	return s.ids(ctx, `SELECT o.id FROM acl_objects o WHERE o.parent_id = ? AND o.type = ? AND o.inherits = ?
		AND NOT EXISTS (SELECT 1 FROM acl_entries e WHERE e.resource_id = o.id AND `+principalMatch+`)`,
		parent, string(t), false, userID, userID)
}

// allowed returns the children of parent of type t on which the user (directly
// or through a group) has a record. It drives from the user's records (few)
// rather than from the parent's children (every item of a list): the CROSS
// JOINs fix that order on SQLite, PostgreSQL plans them as inner joins.
func (s *aclStore) allowed(ctx context.Context, parent string, t Type, userID string) ([]string, error) {
	return s.ids(ctx, `SELECT e.resource_id FROM acl_entries e CROSS JOIN acl_objects o
		WHERE e.principal_id = ? AND e.principal_type = 'user' AND o.id = e.resource_id AND o.parent_id = ? AND o.type = ?
		UNION
		SELECT e.resource_id FROM group_members gm CROSS JOIN acl_entries e CROSS JOIN acl_objects o
		WHERE gm.user_id = ? AND e.principal_id = gm.group_id AND e.principal_type = 'group'
			AND o.id = e.resource_id AND o.parent_id = ? AND o.type = ?`,
		userID, parent, string(t), userID, parent, string(t))
}

func (s *aclStore) ids(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("child exceptions: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("child exceptions: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// descendants returns id and every object below it (for checks on moves).
func (s *aclStore) isDescendant(ctx context.Context, ancestor, id string) (bool, error) {
	var n int
	err := s.db.Q(ctx).QueryRowContext(ctx, `WITH RECURSIVE up(id, parent_id, depth) AS (
		SELECT id, parent_id, 0 FROM acl_objects WHERE id = ?
		UNION ALL SELECT o.id, o.parent_id, u.depth + 1 FROM acl_objects o JOIN up u ON o.id = u.parent_id WHERE u.depth < 64)
		SELECT count(*) FROM up WHERE id = ?`, id, ancestor).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("ancestry of %s: %w", id, err)
	}
	return n > 0, nil
}

func (s *aclStore) childCount(ctx context.Context, id string) (int, error) {
	var n int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM acl_objects WHERE parent_id = ?", id).Scan(&n); err != nil {
		return 0, fmt.Errorf("children of %s: %w", id, err)
	}
	return n, nil
}

// nodeLevels computes the user's level on every node in one walk from the
// roots down: a node's level is the max of its own records and, when it
// inherits, its parent's level.
func (s *aclStore) nodeLevels(ctx context.Context, userID string) (map[string]Level, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE own(id, lvl) AS (
		SELECT e.resource_id, MAX(e.level) FROM acl_entries e WHERE e.resource_type = 'node' AND `+principalMatch+` GROUP BY e.resource_id),
	t(id, lvl, depth) AS (
		SELECT o.id, COALESCE((SELECT own.lvl FROM own WHERE own.id = o.id), 0), 0
		FROM acl_objects o WHERE o.type = 'node' AND o.parent_id IS NULL
		UNION ALL
		SELECT o.id, CASE WHEN o.inherits = ? AND t.lvl > COALESCE((SELECT own.lvl FROM own WHERE own.id = o.id), 0) THEN t.lvl
			ELSE COALESCE((SELECT own.lvl FROM own WHERE own.id = o.id), 0) END, t.depth + 1
		FROM acl_objects o JOIN t ON o.parent_id = t.id WHERE o.type = 'node' AND t.depth < 64)
	SELECT id, lvl FROM t`, userID, userID, true)
	if err != nil {
		return nil, fmt.Errorf("node levels of %s: %w", userID, err)
	}
	defer rows.Close()
	out := map[string]Level{}
	for rows.Next() {
		var id string
		var l Level
		if err := rows.Scan(&id, &l); err != nil {
			return nil, fmt.Errorf("node levels of %s: %w", userID, err)
		}
		out[id] = l
	}
	return out, rows.Err()
}

const subtreeCTE = `WITH RECURSIVE sub(id, depth) AS (
	SELECT id, 0 FROM acl_objects WHERE id = ?
	UNION ALL SELECT o.id, s.depth + 1 FROM acl_objects o JOIN sub s ON o.parent_id = s.id WHERE s.depth < 64)
`

func (s *aclStore) forgetTree(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, subtreeCTE+"DELETE FROM acl_entries WHERE resource_id IN (SELECT id FROM sub)", id); err != nil {
		return fmt.Errorf("forget records under %s: %w", id, err)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, subtreeCTE+"DELETE FROM acl_objects WHERE id IN (SELECT id FROM sub)", id); err != nil {
		return fmt.Errorf("forget resources under %s: %w", id, err)
	}
	return nil
}

// decisiveBelow returns, among the objects of type t at any depth below
// container, the isolated ones on which the user has no record (deny) and
// those on which the user (or one of its groups) has a record (allow).
func (s *aclStore) decisiveBelow(ctx context.Context, container string, t Type, userID string) (deny, allow []string, err error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `WITH RECURSIVE sub(id, inherits, depth) AS (
		SELECT id, inherits, 0 FROM acl_objects WHERE parent_id = ? AND type = ?
		UNION ALL SELECT o.id, o.inherits, s.depth + 1 FROM acl_objects o JOIN sub s ON o.parent_id = s.id WHERE o.type = ? AND s.depth < 64)
	SELECT id, granted FROM (SELECT sub.id, sub.inherits, CASE WHEN EXISTS (SELECT 1 FROM acl_entries e WHERE e.resource_id = sub.id AND `+principalMatch+`)
		THEN 1 ELSE 0 END AS granted FROM sub) x WHERE granted = 1 OR inherits = ?`,
		container, string(t), string(t), userID, userID, false)
	if err != nil {
		return nil, nil, fmt.Errorf("decisive objects under %s: %w", container, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var granted int
		if err := rows.Scan(&id, &granted); err != nil {
			return nil, nil, fmt.Errorf("decisive objects under %s: %w", container, err)
		}
		if granted == 1 {
			allow = append(allow, id)
		} else {
			deny = append(deny, id)
		}
	}
	return deny, allow, rows.Err()
}
