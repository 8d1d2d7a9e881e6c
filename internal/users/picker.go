package users

import (
	"context"
	"io"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/fault"
	"coreportal/internal/principals"
	"coreportal/internal/store"
)

// DefaultCardFields are the profile fields shown while personCardVisibleFields is unset.
var DefaultCardFields = []string{"department", "title", "telephoneNumber", "mobile", "email"}

// AvatarSource opens a stored avatar (the directory capability plugs in the blob store).
type AvatarSource func(ctx context.Context, userID string) (io.ReadCloser, error)

// SetAvatarSource plugs in the avatar store; without one every avatar is 404.
func (s *Service) SetAvatarSource(fn AvatarSource) { s.avatars = fn }

// SetCardFields plugs in the personCardVisibleFields setting of the directory.
func (s *Service) SetCardFields(fn func(ctx context.Context) []string) { s.cardFields = fn }

// SetAttributeSchema plugs in the effective sync field schema of the
// directory (attribute_schema of the full card); it must be cheap.
func (s *Service) SetAttributeSchema(fn func(ctx context.Context) []Attribute) { s.attrSchema = fn }

// UserProfile is the public profile of SPEC.md (GET /users/{id}/profile).
type UserProfile struct {
	ID            string     `json:"id" format:"uuid"`
	Login         string     `json:"login"`
	DisplayName   string     `json:"display_name"`
	Email         string     `json:"email"`
	CardFields    CardFields `json:"card_fields"`
	HasAvatar     bool       `json:"has_avatar"`
	ManagerUserID *string    `json:"manager_user_id" format:"uuid"`
}

// UserOrgNode is a UserOrgNode of SPEC.md.
type UserOrgNode struct {
	ID          string `json:"id" format:"uuid"`
	DisplayName string `json:"display_name"`
	Login       string `json:"login"`
	Title       string `json:"title" doc:"job title from the directory"`
	HasAvatar   bool   `json:"has_avatar"`
	HasChildren bool   `json:"has_children"`
}

func (s *Service) visibleUser(ctx context.Context, id string) (*User, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, fault.Validation("id", "id must be a UUID")
	}
	u, err := s.st.byID(ctx, id)
	if store.IsNotFound(err) || err == nil && u.IsSystem {
		return nil, fault.NotFound("user")
	}
	return u, err
}

// Profile returns the profile card of a user (any signed-in caller).
func (s *Service) Profile(ctx context.Context, id string) (UserProfile, error) {
	u, err := s.visibleUser(ctx, id)
	if err != nil {
		return UserProfile{}, err
	}
	fields := DefaultCardFields
	if s.cardFields != nil {
		fields = s.cardFields(ctx)
	}
	card := CardFields{}
	for _, k := range fields {
		switch k {
		case "displayName", "manager", "thumbnailPhoto", "login":
			continue
		case "email":
			if u.Email != "" {
				card = append(card, CardField{k, u.Email})
			}
		default:
			if v := u.DirectoryAttrs[k]; v != "" {
				card = append(card, CardField{k, v})
			}
		}
	}
	p := UserProfile{ID: u.ID, Login: u.Login, DisplayName: u.DisplayName, Email: u.Email, CardFields: card, HasAvatar: u.AvatarHash != ""}
	if u.ManagerUserID != "" {
		m := u.ManagerUserID
		p.ManagerUserID = &m
	}
	return p, nil
}

// AvatarFile is an open photo with its content type and hash (the ETag).
type AvatarFile struct {
	io.ReadCloser
	ContentType string
	Hash        string
}

// Avatar opens a user's photo; 404 when the user has none (or no avatar
// store is configured). With open=false only the type and hash are read
// (a conditional request that the caller answers with 304).
func (s *Service) Avatar(ctx context.Context, id string, open func(hash string) bool) (*AvatarFile, error) {
	u, err := s.visibleUser(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.AvatarHash == "" || s.avatars == nil {
		return nil, fault.NotFound("avatar")
	}
	f := &AvatarFile{ContentType: u.AvatarContentType, Hash: u.AvatarHash}
	if f.ContentType == "" {
		f.ContentType = "image/jpeg"
	}
	if !open(u.AvatarHash) {
		return f, nil
	}
	if f.ReadCloser, err = s.avatars(ctx, u.ID); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return nil, fault.NotFound("avatar")
		}
		return nil, err
	}
	return f, nil
}

func (s *Service) orgNode(ctx context.Context, u *User) (UserOrgNode, error) {
	has, err := s.st.hasSubordinates(ctx, u.ID)
	if err != nil {
		return UserOrgNode{}, err
	}
	return UserOrgNode{ID: u.ID, DisplayName: u.DisplayName, Login: u.Login, Title: u.DirectoryAttrs["title"], HasAvatar: u.AvatarHash != "", HasChildren: has}, nil
}

// OrgChain returns the managers from the top down to the user (the user last).
// A manager cycle in directory data stops the walk at the first repeat.
func (s *Service) OrgChain(ctx context.Context, id string) ([]UserOrgNode, error) {
	u, err := s.visibleUser(ctx, id)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var chain []UserOrgNode
	for u != nil && !seen[u.ID] && len(chain) < 100 {
		seen[u.ID] = true
		n, err := s.orgNode(ctx, u)
		if err != nil {
			return nil, err
		}
		chain = append([]UserOrgNode{n}, chain...)
		if u.ManagerUserID == "" {
			break
		}
		next, err := s.st.byID(ctx, u.ManagerUserID)
		if store.IsNotFound(err) {
			break
		}
		if err != nil {
			return nil, err
		}
		u = next
	}
	return chain, nil
}

// OrgChildren returns the active direct subordinates of a user.
func (s *Service) OrgChildren(ctx context.Context, id string) ([]UserOrgNode, error) {
	if _, err := s.visibleUser(ctx, id); err != nil {
		return nil, err
	}
	subs, has, err := s.st.subordinates(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]UserOrgNode, 0, len(subs))
	for _, u := range subs {
		out = append(out, UserOrgNode{ID: u.ID, DisplayName: u.DisplayName, Login: u.Login, Title: u.DirectoryAttrs["title"], HasAvatar: u.AvatarHash != "", HasChildren: has[u.ID]})
	}
	return out, nil
}

// DirectoryUser is the directory identity of a domain user.
type DirectoryUser struct {
	ExternalID  string
	Login       string
	DisplayName string
	Email       string
}

// UpsertDomainUser finds a user by external id, else a domain user by login
// that has no directory id yet (it is linked), and creates a domain user when
// neither exists; it returns the user id. A login held by a local account (or
// by another directory account) is a 409 CONFLICT on field login: local
// accounts are never taken over nor overwritten from the directory.
func (s *Service) UpsertDomainUser(ctx context.Context, in DirectoryUser) (string, error) {
	ext := strings.TrimSpace(in.ExternalID)
	login := strings.TrimSpace(in.Login)
	if ext == "" {
		return "", fault.Validation("externalId", "externalId is required")
	}
	if len(ext) > 200 {
		return "", fault.Validation("externalId", "externalId must have at most 200 characters")
	}
	var id string
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		u, err := s.st.byExternalID(ctx, ext)
		if err == nil {
			id = u.ID
			return nil
		}
		if !store.IsNotFound(err) {
			return err
		}
		if err := checkLogin(login); err != nil {
			return err
		}
		display, err := checkDisplayName(in.DisplayName, login)
		if err != nil {
			return err
		}
		email, err := checkEmail(in.Email)
		if err != nil {
			return err
		}
		now := s.now().UTC()
		if u, err := s.st.byLogin(ctx, login); err == nil {
			// Only a domain account still waiting for its directory id may be
			// linked: attaching a directory identity to a local account (the
			// bootstrap administrator, say) would let whoever controls the
			// directory data rewrite and later sign in as that account.
			if u.IsSystem || u.AuthSource != "domain" {
				return fault.Conflict("login %q belongs to a local account: a directory identity cannot be attached to it", login).With("field", "login")
			}
			if u.ExternalID != "" && u.ExternalID != ext {
				return fault.Conflict("login %q belongs to another directory account", login).With("field", "login")
			}
			renamed := u.DisplayName != display
			u.ExternalID, u.DisplayName, u.Email, u.UpdatedAt = ext, display, email, now
			if err := s.st.setDirectoryIdentity(ctx, u); err != nil {
				return err
			}
			if renamed {
				if err := principals.Renamed(ctx, s.db, u.ID); err != nil {
					return err
				}
			}
			s.changed(ctx, u.ID)
			id = u.ID
			return nil
		} else if !store.IsNotFound(err) {
			return err
		}
		u = &User{ID: uuid.NewString(), Login: login, DisplayName: display, Email: email, AuthSource: "domain",
			IsActive: true, ExternalID: ext, CreatedAt: now, UpdatedAt: now}
		if err := s.st.insert(ctx, u); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("login %q is already taken", login).With("field", "login")
			}
			return err
		}
		id = u.ID
		return nil
	})
	return id, err
}

// Search is the rights picker: users matching q (login, name, email), system account excluded.
func (s *Service) Search(ctx context.Context, q string, offset, limit int) ([]Summary, int, error) {
	return s.List(ctx, q, nil, offset, limit)
}
