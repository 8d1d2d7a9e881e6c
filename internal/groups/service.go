// Package groups owns access groups: portal groups managed here and
// domain-linked groups that directory sync maintains. Memberships feed the
// permission engine, whose cache is invalidated on every change.
package groups

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/audit"
	"coreportal/internal/fault"
	"coreportal/internal/principals"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// Group types.
const (
	Portal       = "portal"
	DomainLinked = "domain_linked"
)

// searchLimit is the picker limit of SPEC.md (GET /groups?q=).
const searchLimit = 20

// Group is an access group.
type Group struct {
	ID           string `json:"id" format:"uuid"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	GroupType    string `json:"group_type" enum:"portal,domain_linked"`
	ExternalID   string `json:"-"`
	MembersCount int    `json:"members_count"`
}

// GroupDetail is a group with its members (GET /groups/{id}).
type GroupDetail struct {
	Group
	Members []Member `json:"members"`
}

// Member is a member of a group.
type Member struct {
	ID          string `json:"id" format:"uuid"`
	Login       string `json:"login"`
	DisplayName string `json:"display_name"`
	AuthSource  string `json:"auth_source"`
}

// Service holds the rules of groups.
type Service struct {
	db    *store.DB
	st    *groupStore
	acl   *acl.Engine
	users *users.Service
	now   func() time.Time
}

// New builds the groups service.
func New(db *store.DB, engine *acl.Engine, u *users.Service) *Service {
	return &Service{db: db, st: &groupStore{db: db}, acl: engine, users: u, now: time.Now}
}

func errManagedByDirectory(field string) error {
	return fault.Validation(field, "this group is linked to the directory: directory sync manages its name and membership")
}

// Get returns a group with its members.
func (s *Service) Get(ctx context.Context, id string) (*GroupDetail, error) {
	id, ok := store.CanonicalUUID(id) // one form on both databases
	if !ok {
		return nil, fault.NotFound("group")
	}
	g, err := s.st.byID(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("group")
	}
	if err != nil {
		return nil, err
	}
	d := &GroupDetail{Group: *g}
	if d.Members, err = s.st.members(ctx, id); err != nil {
		return nil, err
	}
	return d, nil
}

// Exists reports whether a group exists (the permission endpoints check principals).
func (s *Service) Exists(ctx context.Context, id string) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, nil
	}
	_, err := s.st.byID(ctx, id)
	if store.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// List returns every group (q empty) or up to 20 matching q in name or description.
func (s *Service) List(ctx context.Context, q string) ([]*Group, error) {
	if strings.TrimSpace(q) == "" {
		return s.st.list(ctx, "", 0)
	}
	return s.st.list(ctx, q, searchLimit)
}

func checkName(name string) (string, error) { return fault.RequiredText("name", name, 200) }

func checkDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	return d, fault.MaxText("description", d, 2000)
}

// Create adds a portal group.
func (s *Service) Create(ctx context.Context, name, description string) (*GroupDetail, error) {
	name, err := checkName(name)
	if err != nil {
		return nil, err
	}
	if description, err = checkDescription(description); err != nil {
		return nil, err
	}
	g := &Group{ID: uuid.NewString(), Name: name, Description: description, GroupType: Portal}
	if err := s.st.insert(ctx, g, s.now().UTC()); err != nil {
		return nil, err
	}
	audit.Record(ctx, audit.Entry{Action: audit.GroupCreate, ResourceType: "group", ResourceID: g.ID, After: map[string]any{"name": g.Name, "description": g.Description}})
	return &GroupDetail{Group: *g, Members: []Member{}}, nil
}

// Update renames or re-describes a portal group.
func (s *Service) Update(ctx context.Context, id string, name, description *string) (*GroupDetail, error) {
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		if g.GroupType != Portal {
			return errManagedByDirectory("name")
		}
		before := map[string]any{"name": g.Name, "description": g.Description}
		oldName := g.Name
		if name != nil {
			if g.Name, err = checkName(*name); err != nil {
				return err
			}
		}
		if description != nil {
			if g.Description, err = checkDescription(*description); err != nil {
				return err
			}
		}
		audit.Record(ctx, audit.Entry{Action: audit.GroupUpdate, ResourceType: "group", ResourceID: id, Before: before, After: map[string]any{"name": g.Name, "description": g.Description}})
		if err := s.st.update(ctx, &g.Group, s.now().UTC()); err != nil {
			return err
		}
		if g.Name != oldName {
			return principals.Renamed(ctx, s.db, g.ID) // the stored id, not the request's spelling
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// Delete removes a portal group; its ACL records are deleted with it, so they
// stop applying at once, and the permission cache is invalidated.
func (s *Service) Delete(ctx context.Context, id string) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.Get(ctx, id)
		if err != nil {
			return err
		}
		if g.GroupType != Portal {
			return errManagedByDirectory("")
		}
		audit.Record(ctx, audit.Entry{Action: audit.GroupDelete, ResourceType: "group", ResourceID: id, Before: map[string]any{"name": g.Name, "members": len(g.Members)}})
		return s.remove(ctx, id)
	})
}

func (s *Service) remove(ctx context.Context, id string) error {
	if err := s.st.delete(ctx, id); err != nil {
		return err
	}
	return s.acl.ForgetPrincipal(ctx, acl.PrincipalGroup, id)
}

// NewMember is either an existing user (UserID) or a directory identity to
// upsert as a domain user.
type NewMember struct {
	UserID    string
	Directory *users.DirectoryUser
}

// AddMember adds a user to a portal group (idempotent) and returns the group.
func (s *Service) AddMember(ctx context.Context, groupID string, m NewMember) (*GroupDetail, error) {
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.Get(ctx, groupID)
		if err != nil {
			return err
		}
		if g.GroupType != Portal {
			return errManagedByDirectory("")
		}
		var userID string
		switch {
		case m.UserID != "" && m.Directory != nil:
			return fault.Validation("userId", "send either userId or the directory identity, not both")
		case m.UserID != "":
			if userID, err = acl.CanonicalField("userId", m.UserID); err != nil {
				return err
			}
			u, err := s.users.Get(ctx, userID)
			if err != nil {
				if fault.Is(err, fault.CodeNotFound) {
					return fault.NotFound("user").With("field", "userId")
				}
				return err
			}
			if u.IsSystem {
				return fault.Validation("userId", "the system account cannot be a group member")
			}
		case m.Directory != nil:
			if userID, err = s.users.UpsertDomainUser(ctx, *m.Directory); err != nil {
				return err
			}
		default:
			return fault.Validation("userId", "userId or externalId is required")
		}
		if err := s.st.addMember(ctx, groupID, userID, s.now().UTC()); err != nil {
			return err
		}
		if err := s.emitMembers(ctx, "group.memberAdded", groupID, []string{userID}); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: audit.GroupMembers, ResourceType: "group", ResourceID: groupID, Details: map[string]any{"added": userID}})
		s.acl.Invalidate(ctx)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, groupID)
}

// RemoveMember removes a user from a portal group (404 when not a member).
func (s *Service) RemoveMember(ctx context.Context, groupID, userID string) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.Get(ctx, groupID)
		if err != nil {
			return err
		}
		if g.GroupType != Portal {
			return errManagedByDirectory("")
		}
		ok, err := s.st.removeMember(ctx, groupID, userID)
		if err != nil {
			return err
		}
		if !ok {
			return fault.NotFound("member")
		}
		if err := s.emitMembers(ctx, "group.memberRemoved", groupID, []string{userID}); err != nil {
			return err
		}
		audit.Record(ctx, audit.Entry{Action: audit.GroupMembers, ResourceType: "group", ResourceID: groupID, Details: map[string]any{"removed": userID}})
		s.acl.Invalidate(ctx)
		return nil
	})
}

// UpsertDomainGroup creates or renames the domain-linked group of a directory
// group (ad-sync) and returns its id and whether it was created or changed;
// an unchanged group is not rewritten.
func (s *Service) UpsertDomainGroup(ctx context.Context, externalID, name, description string) (id string, created, changed bool, err error) {
	if name, err = checkName(name); err != nil {
		return "", false, false, err
	}
	if description, err = checkDescription(description); err != nil {
		return "", false, false, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.st.byExternalID(ctx, externalID)
		if store.IsNotFound(err) {
			g = &Group{ID: uuid.NewString(), Name: name, Description: description, GroupType: DomainLinked, ExternalID: externalID}
			id, created = g.ID, true
			return s.st.insert(ctx, g, s.now().UTC())
		}
		if err != nil {
			return err
		}
		id = g.ID
		if g.GroupType != DomainLinked {
			return fault.Conflict("a portal group already carries the directory id %q", externalID)
		}
		if g.Name == name && g.Description == description {
			return nil
		}
		changed = true
		renamed := g.Name != name
		g.Name, g.Description = name, description
		if err := s.st.update(ctx, g, s.now().UTC()); err != nil {
			return err
		}
		if renamed {
			return principals.Renamed(ctx, s.db, g.ID)
		}
		return nil
	})
	return id, created, changed, err
}

// SetDomainMembers makes the members of a domain-linked group exactly userIDs
// (removeMissing=false only adds) and reports whether anything changed. Like
// the API's member changes it emits group.memberAdded and
// group.memberRemoved, one event each per call naming every user concerned.
func (s *Service) SetDomainMembers(ctx context.Context, groupID string, userIDs []string, removeMissing bool) (bool, error) {
	changed := false
	err := s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		cur, err := s.st.memberIDs(ctx, groupID)
		if err != nil {
			return err
		}
		now := s.now().UTC()
		want := map[string]bool{}
		var added, removed []string
		for _, u := range userIDs {
			if want[u] {
				continue
			}
			want[u] = true
			if !cur[u] {
				if err := s.st.addMember(ctx, groupID, u, now); err != nil {
					return err
				}
				added = append(added, u)
			}
		}
		if removeMissing {
			for u := range cur {
				if !want[u] {
					if _, err := s.st.removeMember(ctx, groupID, u); err != nil {
						return err
					}
					removed = append(removed, u)
				}
			}
		}
		changed = len(added)+len(removed) > 0
		if changed {
			s.acl.Invalidate(ctx)
		}
		return s.emitChanges(ctx, groupID, added, removed)
	})
	return changed, err
}

// DomainGroups maps the directory id of every domain-linked group to its id.
func (s *Service) DomainGroups(ctx context.Context) (map[string]string, error) {
	return s.st.domainGroups(ctx)
}

// DeleteDomainGroup removes a domain-linked group (ad-sync, removeMissingGroups);
// portal groups are refused.
func (s *Service) DeleteDomainGroup(ctx context.Context, id string) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		g, err := s.st.byID(ctx, id)
		if err != nil {
			return err
		}
		if g.GroupType != DomainLinked {
			return fault.Conflict("group %s is a portal group: the sync never removes it", id)
		}
		return s.remove(ctx, id)
	})
}
