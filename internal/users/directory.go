package users

import (
	"context"
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/fault"
	"coreportal/internal/principals"
	"coreportal/internal/store"
)

// DirectoryEntry is a person as the directory gives it, for domain sign-in
// and ad-sync. DN and ManagerDN are normalised by the caller.
type DirectoryEntry struct {
	ExternalID  string
	Login       string
	DisplayName string
	Email       string
	DN          string
	ManagerDN   string
	Attrs       map[string]string
	// Disabled: the account is disabled in the directory (AD userAccountControl).
	Disabled bool
	// KeepInactive: do not reactivate a user the sync deactivated (sign-in:
	// only the sync, which knows the selection, brings users back).
	KeepInactive bool
}

// DirectoryOutcome says what ApplyDirectoryEntry did.
type DirectoryOutcome string

const (
	DirectoryCreated     DirectoryOutcome = "created"
	DirectoryUpdated     DirectoryOutcome = "updated"
	DirectoryUnchanged   DirectoryOutcome = "unchanged"
	DirectoryReactivated DirectoryOutcome = "reactivated"
)

// ApplyDirectoryEntry creates or updates the domain user of a directory
// entry and returns it. The user is matched by external id (so a user renamed
// in the directory keeps its local id), else by login when that login belongs
// to a domain user still without a directory id. A login held by a local
// account or by another directory account is a 409 CONFLICT: local accounts
// are never taken over. Nothing is written when nothing changed. A user the
// sync deactivated is reactivated when the entry is back and enabled; one an
// administrator deactivated stays deactivated.
func (s *Service) ApplyDirectoryEntry(ctx context.Context, e DirectoryEntry) (*User, DirectoryOutcome, error) {
	e.ExternalID = strings.TrimSpace(e.ExternalID)
	e.Login = strings.TrimSpace(e.Login)
	if e.ExternalID == "" || len(e.ExternalID) > 200 {
		return nil, "", fault.Validation("externalId", "the directory entry %q has no usable id (objectSid or the configured id attribute)", e.Login)
	}
	if err := checkDirectoryLogin(e.Login); err != nil {
		return nil, "", err
	}
	display, err := checkDisplayName(e.DisplayName, e.Login)
	if err != nil {
		return nil, "", err
	}
	e.DisplayName = display
	if e.Email, err = checkEmail(e.Email); err != nil {
		e.Email = "" // an unusable address in the directory is not copied
	}
	if e.Attrs == nil {
		e.Attrs = map[string]string{}
	}
	var out *User
	var outcome DirectoryOutcome
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		u, err := s.st.byExternalID(ctx, e.ExternalID)
		if store.IsNotFound(err) {
			u, err = s.st.byLogin(ctx, e.Login)
			switch {
			case store.IsNotFound(err):
				out, outcome, err = s.insertDirectoryUser(ctx, e)
				return err
			case err != nil:
				return err
			case u.IsSystem || u.AuthSource != "domain":
				return fault.Conflict("login %q belongs to a local account: a directory identity cannot be attached to it", e.Login).With("field", "login")
			case u.ExternalID != "":
				return fault.Conflict("login %q belongs to another directory account", e.Login).With("field", "login")
			}
		} else if err != nil {
			return err
		}
		next := *u
		next.ExternalID, next.Login, next.DisplayName, next.Email = e.ExternalID, e.Login, e.DisplayName, e.Email
		next.DirectoryDN, next.ManagerDN, next.DirectoryAttrs = e.DN, e.ManagerDN, e.Attrs
		outcome = DirectoryUpdated
		switch {
		case e.Disabled && u.IsActive:
			next.IsActive, next.DirectoryDeactivated = false, true
		case !e.Disabled && !e.KeepInactive && !u.IsActive && u.DirectoryDeactivated:
			next.IsActive, next.DirectoryDeactivated = true, false
			outcome = DirectoryReactivated
		}
		if sameDirectoryState(u, &next) {
			out, outcome = u, DirectoryUnchanged
			return nil
		}
		next.UpdatedAt = s.now().UTC()
		if err := s.st.updateDirectoryUser(ctx, &next, u.IsActive && !next.IsActive); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("login %q is already taken", e.Login).With("field", "login")
			}
			return err
		}
		if next.DisplayName != u.DisplayName {
			if err := principals.Renamed(ctx, s.db, next.ID); err != nil {
				return err
			}
		}
		s.changed(ctx, next.ID)
		out = &next
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return out, outcome, nil
}

// checkDirectoryLogin accepts what directories allow in login names (AD
// sAMAccountName may hold apostrophes, spaces, $, …) but no control
// characters, and never the system account's name.
func checkDirectoryLogin(login string) error {
	if login == "" {
		return fault.Validation("login", "login is required")
	}
	if utf8.RuneCountInString(login) > 100 {
		return fault.Validation("login", "login %q has more than 100 characters", login)
	}
	for _, r := range login {
		if unicode.IsControl(r) {
			return fault.Validation("login", "login %q holds a control character", login)
		}
	}
	if strings.EqualFold(login, SystemLogin) {
		return fault.Validation("login", "login %q is reserved", SystemLogin)
	}
	return nil
}

func (s *Service) insertDirectoryUser(ctx context.Context, e DirectoryEntry) (*User, DirectoryOutcome, error) {
	now := s.now().UTC()
	u := &User{ID: uuid.NewString(), Login: e.Login, DisplayName: e.DisplayName, Email: e.Email, AuthSource: "domain",
		IsActive: !e.Disabled, DirectoryDeactivated: e.Disabled, ExternalID: e.ExternalID, DirectoryAttrs: e.Attrs,
		DirectoryDN: e.DN, ManagerDN: e.ManagerDN, CreatedAt: now, UpdatedAt: now}
	if err := s.st.insertDirectoryUser(ctx, u); err != nil {
		if store.IsUnique(err) {
			return nil, "", fault.Conflict("login %q is already taken", e.Login).With("field", "login")
		}
		return nil, "", err
	}
	return u, DirectoryCreated, nil
}

func sameDirectoryState(a, b *User) bool {
	return a.ExternalID == b.ExternalID && a.Login == b.Login && a.DisplayName == b.DisplayName && a.Email == b.Email &&
		a.DirectoryDN == b.DirectoryDN && a.ManagerDN == b.ManagerDN && a.IsActive == b.IsActive &&
		a.DirectoryDeactivated == b.DirectoryDeactivated && maps.Equal(a.DirectoryAttrs, b.DirectoryAttrs)
}

// SetDirectoryAvatar records the photo a user has in the blob store (hash
// and content type; empty hash = no photo).
func (s *Service) SetDirectoryAvatar(ctx context.Context, id, hash, contentType string) error {
	if err := s.st.setAvatar(ctx, id, hash, contentType); err != nil {
		return err
	}
	s.changed(ctx, id)
	return nil
}

// ResolveDirectoryManagers sets manager_user_id of every domain user from
// its manager DN (the user whose DN it is; none when the manager is not
// synchronised) and returns how many changed.
func (s *Service) ResolveDirectoryManagers(ctx context.Context) (int, error) {
	rows, err := s.st.directoryLinks(ctx)
	if err != nil {
		return 0, err
	}
	byDN := make(map[string]string, len(rows))
	for _, r := range rows {
		if r.dn != "" {
			byDN[r.dn] = r.id
		}
	}
	n := 0
	for _, r := range rows {
		want := ""
		if r.managerDN != "" {
			want = byDN[r.managerDN]
		}
		if want == r.managerID {
			continue
		}
		if err := s.st.setManager(ctx, r.id, want); err != nil {
			return n, err
		}
		s.changed(ctx, r.id)
		n++
	}
	return n, nil
}

// DeactivateDirectoryUsersExcept deactivates the active domain users with a
// directory id that are not in keep (ids), marking them as deactivated by the
// sync, and returns how many.
func (s *Service) DeactivateDirectoryUsersExcept(ctx context.Context, keep map[string]bool) (int, error) {
	rows, err := s.st.directoryLinks(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		if !r.active || keep[r.id] {
			continue
		}
		if err := s.st.deactivateByDirectory(ctx, r.id, s.now().UTC()); err != nil {
			return n, err
		}
		s.changed(ctx, r.id)
		n++
	}
	return n, nil
}

// FindDirectoryUser returns the id of the user with this directory id, else
// of the domain user with this login; "" when none.
func (s *Service) FindDirectoryUser(ctx context.Context, externalID, login string) (string, error) {
	if externalID != "" {
		u, err := s.st.byExternalID(ctx, externalID)
		if err == nil {
			return u.ID, nil
		}
		if !store.IsNotFound(err) {
			return "", err
		}
	}
	u, err := s.st.byLogin(ctx, login)
	if store.IsNotFound(err) || err == nil && u.AuthSource != "domain" {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return u.ID, nil
}

// DirectoryDNs maps the normalised DN of every synchronised user to its id.
func (s *Service) DirectoryDNs(ctx context.Context) (map[string]string, error) {
	rows, err := s.st.directoryLinks(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		if r.dn != "" {
			out[r.dn] = r.id
		}
	}
	return out, nil
}
