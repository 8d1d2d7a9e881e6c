package users

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// AccountByEmail returns the one account whose e-mail is email (any case);
// fault NotFound when none or several have it (an ambiguous address never
// picks an account).
func (s *Service) AccountByEmail(ctx context.Context, email string) (auth.Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return auth.Account{}, fault.NotFound("user")
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+userColumns+" FROM users WHERE LOWER(email) = ? LIMIT 2", email)
	if err != nil {
		return auth.Account{}, fmt.Errorf("load user by e-mail: %w", err)
	}
	defer rows.Close()
	var found []*User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return auth.Account{}, err
		}
		found = append(found, u)
	}
	if err := rows.Err(); err != nil {
		return auth.Account{}, err
	}
	if len(found) != 1 {
		return auth.Account{}, fault.NotFound("user")
	}
	return account(found[0]), nil
}

// CreateSSOUser creates the domain user of a single sign-on identity
// (OpenID Connect) without a directory id: ad-sync attaches it later by
// login. A taken login is a 409 CONFLICT.
func (s *Service) CreateSSOUser(ctx context.Context, login, displayName, email string) (auth.Account, error) {
	login = strings.TrimSpace(login)
	if err := checkDirectoryLogin(login); err != nil {
		return auth.Account{}, err
	}
	display, err := checkDisplayName(displayName, login)
	if err != nil {
		display = login
	}
	if email, err = checkEmail(email); err != nil {
		email = ""
	}
	now := s.now().UTC()
	u := &User{ID: uuid.NewString(), Login: login, DisplayName: display, Email: email, AuthSource: "domain", IsActive: true,
		DirectoryAttrs: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	if err := s.st.insertDirectoryUser(ctx, u); err != nil {
		if store.IsUnique(err) {
			return auth.Account{}, fault.Conflict("login %q is already taken", login).With("field", "login")
		}
		return auth.Account{}, err
	}
	return account(u), nil
}
