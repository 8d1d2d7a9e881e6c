package users

import (
	"context"
	"fmt"

	"coreportal/internal/principals"
)

func (s *Store) byExternalID(ctx context.Context, ext string) (*User, error) {
	u, err := scanUser(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+userColumns+" FROM users WHERE external_id = ?", ext))
	if err != nil {
		return nil, fmt.Errorf("load user by external id: %w", err)
	}
	return u, nil
}

// setDirectoryIdentity fills the directory fields of an existing user.
func (s *Store) setDirectoryIdentity(ctx context.Context, u *User) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE users SET external_id = ?, display_name = ?, email = ?, search_text = ?, updated_at = ?
		WHERE id = ?`, nullable(u.ExternalID), u.DisplayName, u.Email, searchText(u), u.UpdatedAt, u.ID)
	if err != nil {
		return fmt.Errorf("update directory identity of %s: %w", u.ID, s.db.Translate(err))
	}
	principals.Changed(ctx, s.db, u.ID)
	return nil
}

// subordinates returns active users whose manager is id, with whether each has subordinates.
func (s *Store) subordinates(ctx context.Context, id string) ([]*User, map[string]bool, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+userColumns+` FROM users WHERE manager_user_id = ? AND is_active = ? AND is_system = ?
		ORDER BY lower(display_name), login_norm`, id, true, false)
	if err != nil {
		return nil, nil, fmt.Errorf("subordinates of %s: %w", id, err)
	}
	var out []*User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("subordinates of %s: %w", id, err)
		}
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	has := map[string]bool{}
	for _, u := range out {
		ok, err := s.hasSubordinates(ctx, u.ID)
		if err != nil {
			return nil, nil, err
		}
		has[u.ID] = ok
	}
	return out, has, nil
}

func (s *Store) hasSubordinates(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM users WHERE manager_user_id = ? AND is_active = ? AND is_system = ?", id, true, false).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("count subordinates of %s: %w", id, err)
	}
	return n > 0, nil
}
