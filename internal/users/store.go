package users

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/principals"
	"coreportal/internal/store"
)

const userColumns = `id, login, display_name, email, auth_source, COALESCE(password_hash, ''), is_active, is_core_admin,
	is_seed_admin, is_system, COALESCE(external_id, ''), directory_attrs, COALESCE(CAST(manager_user_id AS TEXT), ''),
	COALESCE(avatar_hash, ''), COALESCE(avatar_content_type, ''), token_version, created_at, updated_at,
	COALESCE(directory_dn, ''), COALESCE(manager_dn, ''), directory_deactivated, COALESCE(language, ''), COALESCE(time_zone, '')`

type rowScanner interface{ Scan(dest ...any) error }

func scanUser(r rowScanner) (*User, error) {
	var u User
	var attrs string
	err := r.Scan(&u.ID, &u.Login, &u.DisplayName, &u.Email, &u.AuthSource, &u.PasswordHash, &u.IsActive, &u.IsCoreAdmin,
		&u.IsSeedAdmin, &u.IsSystem, &u.ExternalID, &attrs, &u.ManagerUserID, &u.AvatarHash, &u.AvatarContentType,
		&u.TokenVersion, &u.CreatedAt, &u.UpdatedAt, &u.DirectoryDN, &u.ManagerDN, &u.DirectoryDeactivated, &u.Language, &u.TimeZone)
	if err != nil {
		return nil, err
	}
	u.DirectoryAttrs = decodeAttrs(attrs)
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	return &u, nil
}

// Store is the SQL of users.
type Store struct{ db *store.DB }

func normLogin(login string) string { return strings.ToLower(strings.TrimSpace(login)) }

func searchText(u *User) string {
	return strings.ToLower(u.Login + " " + u.DisplayName + " " + u.Email)
}

func (s *Store) byID(ctx context.Context, id string) (*User, error) {
	u, err := scanUser(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+userColumns+" FROM users WHERE id = ?", id))
	if err != nil {
		return nil, fmt.Errorf("load user %s: %w", id, err)
	}
	return u, nil
}

func (s *Store) byLogin(ctx context.Context, login string) (*User, error) {
	u, err := scanUser(s.db.Q(ctx).QueryRowContext(ctx, "SELECT "+userColumns+" FROM users WHERE login_norm = ?", normLogin(login)))
	if err != nil {
		return nil, fmt.Errorf("load user by login: %w", err)
	}
	return u, nil
}

func (s *Store) insert(ctx context.Context, u *User) error {
	attrs, _ := json.Marshal(u.DirectoryAttrs)
	if u.DirectoryAttrs == nil {
		attrs = []byte("{}")
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO users (id, login, login_norm, display_name, email, search_text, auth_source,
		password_hash, is_active, is_core_admin, is_seed_admin, is_system, external_id, directory_attrs, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Login, normLogin(u.Login), u.DisplayName, u.Email, searchText(u), u.AuthSource, nullable(u.PasswordHash),
		u.IsActive, u.IsCoreAdmin, u.IsSeedAdmin, u.IsSystem, nullable(u.ExternalID), string(attrs), u.CreatedAt, u.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert user %s: %w", u.Login, s.db.Translate(err))
	}
	return nil
}

// updateProfile writes the card; revoke moves the user to a new token
// generation, so every token issued before stops working for good.
func (s *Store) updateProfile(ctx context.Context, u *User, revoke bool) error {
	bump := 0
	if revoke {
		bump = 1
	}
	_, err := s.db.W(ctx).ExecContext(ctx, `UPDATE users SET display_name = ?, email = ?, search_text = ?, is_active = ?,
		is_core_admin = ?, token_version = token_version + ?, updated_at = ? WHERE id = ?`,
		u.DisplayName, u.Email, searchText(u), u.IsActive, u.IsCoreAdmin, bump, u.UpdatedAt, u.ID)
	if err != nil {
		return fmt.Errorf("update user %s: %w", u.ID, err)
	}
	principals.Changed(ctx, s.db, u.ID)
	return nil
}

func (s *Store) setPassword(ctx context.Context, id, hash string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE users SET password_hash = ?, token_version = token_version + 1, updated_at = ? WHERE id = ?", hash, at, id)
	if err != nil {
		return fmt.Errorf("set password of %s: %w", id, err)
	}
	return nil
}

// setOwnPassword stores a password the user chose and moves the user to a
// new token generation, which it returns.
func (s *Store) setOwnPassword(ctx context.Context, id, hash string, at time.Time) (int, error) {
	var version int
	err := s.db.W(ctx).QueryRowContext(ctx, "UPDATE users SET password_hash = ?, token_version = token_version + 1, updated_at = ? WHERE id = ? RETURNING token_version",
		hash, at, id).Scan(&version)
	if err != nil {
		return 0, fmt.Errorf("set own password of %s: %w", id, err)
	}
	return version, nil
}

// setPreferences stores the user's preferences (an empty value is NULL).
func (s *Store) setPreferences(ctx context.Context, id, language, timeZone string, at time.Time) error {
	_, err := s.db.W(ctx).ExecContext(ctx, "UPDATE users SET language = ?, time_zone = ?, updated_at = ? WHERE id = ?",
		nullable(language), nullable(timeZone), at, id)
	if err != nil {
		return fmt.Errorf("set preferences of %s: %w", id, err)
	}
	return nil
}

// activeAdminIDs lists the active administrators (system account excluded),
// locking their rows on PostgreSQL so that two demotions cannot both pass.
func (s *Store) activeAdminIDs(ctx context.Context) ([]string, error) {
	q := "SELECT id FROM users WHERE is_core_admin = ? AND is_active = ? AND is_system = ?" + s.db.Dialect.ForUpdate()
	rows, err := s.db.W(ctx).QueryContext(ctx, q, true, true, false)
	if err != nil {
		return nil, fmt.Errorf("list administrators: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list administrators: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// listFilter is the admin user list query.
type listFilter struct {
	Q       string
	IsAdmin *bool
	Offset  int
	Limit   int
}

func (s *Store) list(ctx context.Context, f listFilter) ([]*User, int, error) {
	where := []string{"is_system = ?"}
	args := []any{false}
	if q := strings.TrimSpace(f.Q); q != "" {
		where = append(where, `search_text LIKE ? ESCAPE '\'`)
		args = append(args, store.Like(strings.ToLower(q)))
	}
	if f.IsAdmin != nil {
		where = append(where, "is_core_admin = ?")
		args = append(args, *f.IsAdmin)
	}
	cond := strings.Join(where, " AND ")
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, "SELECT count(*) FROM users WHERE "+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count users: %w", err)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+userColumns+" FROM users WHERE "+cond+
		" ORDER BY login_norm LIMIT ? OFFSET ?", append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []*User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("list users: %w", err)
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

func nullable(s string) any {
	if s == "" {
		return sql.NullString{}
	}
	return s
}
