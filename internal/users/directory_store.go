package users

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/principals"
)

// updateDirectoryUser writes the directory-managed columns of a domain user.
// bumpTokens revokes the user's tokens (deactivation).
func (s *Store) updateDirectoryUser(ctx context.Context, u *User, bumpTokens bool) error {
	attrs, err := json.Marshal(u.DirectoryAttrs)
	if err != nil {
		return fmt.Errorf("encode directory attributes: %w", err)
	}
	bump := 0
	if bumpTokens {
		bump = 1
	}
	_, err = s.db.W(ctx).ExecContext(ctx, `UPDATE users SET external_id = ?, login = ?, login_norm = ?, display_name = ?, email = ?,
		search_text = ?, directory_attrs = ?, directory_dn = ?, manager_dn = ?, is_active = ?, directory_deactivated = ?,
		token_version = token_version + ?, updated_at = ? WHERE id = ?`,
		nullable(u.ExternalID), u.Login, normLogin(u.Login), u.DisplayName, u.Email, searchText(u), string(attrs),
		nullable(u.DirectoryDN), nullable(u.ManagerDN), u.IsActive, u.DirectoryDeactivated, bump, u.UpdatedAt, u.ID)
	if err != nil {
		return fmt.Errorf("update directory user %s: %w", u.ID, s.db.Translate(err))
	}
	principals.Changed(ctx, s.db, u.ID)
	return nil
}

// insertDirectoryUser adds a domain user with its directory columns in one statement.
func (s *Store) insertDirectoryUser(ctx context.Context, u *User) error {
	attrs, err := json.Marshal(u.DirectoryAttrs)
	if err != nil {
		return fmt.Errorf("encode directory attributes: %w", err)
	}
	_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO users (id, login, login_norm, display_name, email, search_text, auth_source,
		is_active, is_core_admin, is_seed_admin, is_system, external_id, directory_attrs, directory_dn, manager_dn, directory_deactivated,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'domain', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Login, normLogin(u.Login), u.DisplayName, u.Email, searchText(u), u.IsActive, false, false, false,
		nullable(u.ExternalID), string(attrs), nullable(u.DirectoryDN), nullable(u.ManagerDN), u.DirectoryDeactivated, u.CreatedAt, u.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert directory user %s: %w", u.Login, s.db.Translate(err))
	}
	return nil
}

func (s *Store) setAvatar(ctx context.Context, id, hash, contentType string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE users SET avatar_hash = ?, avatar_content_type = ? WHERE id = ?",
		nullable(hash), nullable(contentType), id)
	if err != nil {
		return fmt.Errorf("set avatar of %s: %w", id, err)
	}
	return nil
}

func (s *Store) setManager(ctx context.Context, id, managerID string) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE users SET manager_user_id = ? WHERE id = ?", nullable(managerID), id)
	if err != nil {
		return fmt.Errorf("set manager of %s: %w", id, err)
	}
	return nil
}

func (s *Store) deactivateByDirectory(ctx context.Context, id string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE users SET is_active = ?, directory_deactivated = ?, token_version = token_version + 1,
		updated_at = ? WHERE id = ? AND is_active = ?`, false, true, at, id, true)
	if err != nil {
		return fmt.Errorf("deactivate %s: %w", id, err)
	}
	return nil
}

type directoryLink struct {
	id, dn, managerDN, managerID string
	active                       bool
}

// directoryLinks lists the domain users that have a directory id.
func (s *Store) directoryLinks(ctx context.Context) ([]directoryLink, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, COALESCE(directory_dn, ''), COALESCE(manager_dn, ''),
		COALESCE(CAST(manager_user_id AS TEXT), ''), is_active FROM users
		WHERE auth_source = 'domain' AND external_id IS NOT NULL AND is_system = ?`, false)
	if err != nil {
		return nil, fmt.Errorf("list directory users: %w", err)
	}
	defer rows.Close()
	var out []directoryLink
	for rows.Next() {
		var l directoryLink
		if err := rows.Scan(&l.id, &l.dn, &l.managerDN, &l.managerID, &l.active); err != nil {
			return nil, fmt.Errorf("list directory users: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
