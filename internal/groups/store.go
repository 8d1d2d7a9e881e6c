package groups

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/principals"
	"coreportal/internal/store"
)

type groupStore struct{ db *store.DB }

const groupColumns = `g.id, g.name, g.description, g.group_type, COALESCE(g.external_id, ''),
	(SELECT count(*) FROM group_members m WHERE m.group_id = g.id)`

type scanner interface{ Scan(dest ...any) error }

func scanGroup(r scanner) (*Group, error) {
	var g Group
	if err := r.Scan(&g.ID, &g.Name, &g.Description, &g.GroupType, &g.ExternalID, &g.MembersCount); err != nil {
		return nil, err
	}
	return &g, nil
}

func searchText(name, description string) string { return strings.ToLower(name + " " + description) }

func (s *groupStore) byID(ctx context.Context, id string) (*Group, error) {
	g, err := scanGroup(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+groupColumns+" FROM groups g WHERE g.id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load group %s: %w", id, err)
	}
	return g, nil
}

func (s *groupStore) byExternalID(ctx context.Context, ext string) (*Group, error) {
	g, err := scanGroup(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+groupColumns+" FROM groups g WHERE g.external_id = ?", ext))
	if err != nil {
		return nil, fmt.Errorf("load group by external id: %w", err)
	}
	return g, nil
}

func (s *groupStore) list(ctx context.Context, q string, limit int) ([]*Group, error) {
	query := "SELECT " + groupColumns + " FROM groups g"
	var args []any
	if q = strings.TrimSpace(q); q != "" {
		query += ` WHERE g.search_text LIKE ? ESCAPE '\'`
		args = append(args, store.Like(strings.ToLower(q)))
	}
	query += " ORDER BY lower(g.name), g.id"
	if limit > 0 {
		query += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list groups: %w", err)
	}
	defer rows.Close()
	out := []*Group{}
	for rows.Next() {
		g, err := scanGroup(rows)
		if err != nil {
			return nil, fmt.Errorf("list groups: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

func (s *groupStore) insert(ctx context.Context, g *Group, now time.Time) error {
	var ext any
	if g.ExternalID != "" {
		ext = g.ExternalID
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO groups (id, name, description, group_type, external_id, search_text, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, g.ID, g.Name, g.Description, g.GroupType, ext, searchText(g.Name, g.Description), now, now)
	if err != nil {
		return fmt.Errorf("insert group: %w", s.db.Translate(err))
	}
	return nil
}

func (s *groupStore) update(ctx context.Context, g *Group, now time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE groups SET name = ?, description = ?, search_text = ?, updated_at = ? WHERE id = ?",
		g.Name, g.Description, searchText(g.Name, g.Description), now, g.ID)
	if err != nil {
		return fmt.Errorf("update group: %w", err)
	}
	principals.Changed(ctx, s.db, g.ID)
	return nil
}

func (s *groupStore) delete(ctx context.Context, id string) error {
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM group_members WHERE group_id = ?", id); err != nil {
		return fmt.Errorf("delete members: %w", err)
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM groups WHERE id = ?", id); err != nil {
		return fmt.Errorf("delete group: %w", err)
	}
	principals.Changed(ctx, s.db, id)
	return nil
}

func (s *groupStore) members(ctx context.Context, id string) ([]Member, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT u.id, u.login, u.display_name, u.auth_source FROM group_members m
		JOIN users u ON u.id = m.user_id WHERE m.group_id = ? ORDER BY lower(u.display_name), u.login_norm`, id)
	if err != nil {
		return nil, fmt.Errorf("members of %s: %w", id, err)
	}
	defer rows.Close()
	out := []Member{}
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.ID, &m.Login, &m.DisplayName, &m.AuthSource); err != nil {
			return nil, fmt.Errorf("members of %s: %w", id, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (s *groupStore) addMember(ctx context.Context, groupID, userID string, now time.Time) error {
	var n int
	err := s.db.W(ctx).QueryRowContext(ctx, "SELECT count(*) FROM group_members WHERE group_id = ? AND user_id = ?", groupID, userID).Scan(&n)
	if err != nil {
		return fmt.Errorf("check membership: %w", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, "INSERT INTO group_members (group_id, user_id, added_at) VALUES (?, ?, ?)", groupID, userID, now); err != nil {
		return fmt.Errorf("add member: %w", s.db.Translate(err))
	}
	return nil
}

func (s *groupStore) removeMember(ctx context.Context, groupID, userID string) (bool, error) {
	res, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM group_members WHERE group_id = ? AND user_id = ?", groupID, userID)
	if err != nil {
		return false, fmt.Errorf("remove member: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func (s *groupStore) memberIDs(ctx context.Context, groupID string) (map[string]bool, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT user_id FROM group_members WHERE group_id = ?", groupID)
	if err != nil {
		return nil, fmt.Errorf("member ids: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id sql.NullString
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("member ids: %w", err)
		}
		out[id.String] = true
	}
	return out, rows.Err()
}

func (s *groupStore) domainGroups(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT id, external_id FROM groups WHERE group_type = ? AND external_id IS NOT NULL", DomainLinked)
	if err != nil {
		return nil, fmt.Errorf("list domain groups: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, ext string
		if err := rows.Scan(&id, &ext); err != nil {
			return nil, fmt.Errorf("list domain groups: %w", err)
		}
		out[ext] = id
	}
	return out, rows.Err()
}
