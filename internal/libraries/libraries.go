package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// NewLibrary is the input of Create.
type NewLibrary struct {
	NodeID      string
	Title       string
	Slug        string
	Description string
}

// LibraryPatch is the input of Update; nil fields stay.
type LibraryPatch struct {
	Title       *string
	Slug        *string
	Description *string
}

func checkDescription(d string) error { return fault.MaxText("description", d, 4000) }

// openNode checks min on an existing node (404 missing, 403 without the level).
func (s *Service) openNode(ctx context.Context, p *auth.Principal, nodeID string, min acl.Level) (string, error) {
	id, ok := store.CanonicalUUID(strings.TrimSpace(nodeID))
	if !ok {
		return "", fault.Validation("nodeId", "nodeId must be a UUID")
	}
	if _, err := s.nodes.Lookup(ctx, id); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return "", fault.NotFound("node").With("field", "nodeId")
		}
		return "", err
	}
	return id, s.need(ctx, p, nodeRef(id), min)
}

// Libraries returns the libraries of a node that the caller can view (view on the node).
func (s *Service) Libraries(ctx context.Context, p *auth.Principal, nodeID string) ([]LibraryOut, error) {
	id, err := s.openNode(ctx, p, nodeID, acl.View)
	if err != nil {
		return nil, err
	}
	ls, err := s.st.librariesOfNode(ctx, id)
	if err != nil {
		return nil, err
	}
	out := []LibraryOut{}
	for _, l := range ls {
		lvl, err := s.acl.Level(ctx, p, libRef(l.ID))
		if err != nil {
			return nil, err
		}
		if lvl >= acl.View {
			fs, err := s.st.fields(ctx, l.ID)
			if err != nil {
				return nil, err
			}
			out = append(out, l.out(fs))
		}
	}
	return out, nil
}

func slugTaken(slug string) error {
	return fault.Conflict("the node already has a library with slug %q", slug).With("field", "slug")
}

// Create adds a library to a node (edit on the node).
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewLibrary) (LibraryOut, error) {
	title, err := fault.RequiredText("title", in.Title, 200)
	if err != nil {
		return LibraryOut{}, err
	}
	if err := nodes.CheckSlug("slug", in.Slug); err != nil {
		return LibraryOut{}, err
	}
	if err := checkDescription(in.Description); err != nil {
		return LibraryOut{}, err
	}
	nodeID, err := s.openNode(ctx, p, in.NodeID, acl.Edit)
	if err != nil {
		return LibraryOut{}, err
	}
	now := s.now().UTC()
	l := &Library{ID: uuid.NewString(), NodeID: nodeID, Slug: in.Slug, Title: title, Description: in.Description,
		CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.insertLibrary(ctx, l); err != nil {
			if store.IsUnique(err) {
				return slugTaken(l.Slug)
			}
			return err
		}
		node := nodeRef(nodeID)
		if err := s.acl.Register(ctx, libRef(l.ID), &node); err != nil {
			return err
		}
		return s.indexLibrary(ctx, l)
	})
	if err != nil {
		return LibraryOut{}, err
	}
	return l.out(nil), nil
}

// Get returns a library with its fields (view on the library).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (LibraryOut, error) {
	l, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return LibraryOut{}, err
	}
	return l.out(l.fields), nil
}

// openWithNodeRight loads a library the caller can view and checks min on its node
// (PATCH needs edit, DELETE needs delete, as for lists).
func (s *Service) openWithNodeRight(ctx context.Context, p *auth.Principal, id string, min acl.Level) (*lib, error) {
	l, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return nil, err
	}
	lvl, err := s.acl.Level(ctx, p, nodeRef(l.NodeID))
	if err != nil {
		return nil, err
	}
	if lvl < min {
		return nil, fault.Forbidden("%s right on the node of this library is required", min)
	}
	return l, nil
}

// Update changes title, slug or description (view on the library, edit on its node).
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, in LibraryPatch) (LibraryOut, error) {
	l, err := s.openWithNodeRight(ctx, p, id, acl.Edit)
	if err != nil {
		return LibraryOut{}, err
	}
	if in.Title != nil {
		if l.Title, err = fault.RequiredText("title", *in.Title, 200); err != nil {
			return LibraryOut{}, err
		}
	}
	if in.Slug != nil {
		if err := nodes.CheckSlug("slug", *in.Slug); err != nil {
			return LibraryOut{}, err
		}
		l.Slug = *in.Slug
	}
	if in.Description != nil {
		if err := checkDescription(*in.Description); err != nil {
			return LibraryOut{}, err
		}
		l.Description = *in.Description
	}
	l.UpdatedAt = s.now().UTC()
	slugChanged := in.Slug != nil
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.updateLibrary(ctx, l.Library); err != nil {
			if store.IsUnique(err) {
				return slugTaken(l.Slug)
			}
			return err
		}
		if slugChanged && s.index != nil { // files carry the library's slug in their path
			ok, err := search.Rename(ctx, s.index, l.ID, l.Slug)
			if err != nil {
				return err
			}
			if !ok {
				return s.reindexFiles(ctx, l.ID)
			}
		}
		return s.indexLibrary(ctx, l.Library)
	})
	if err != nil {
		return LibraryOut{}, err
	}
	return l.out(l.fields), nil
}

// binLibrary is the payload of a "library" recycle-bin entry: the library
// record with its field schema; folders, files and their field values stay
// in their tables, hidden with the library, until restore or purge.
type binLibrary struct {
	Library LibraryOut `json:"library"`
}

// Delete moves a library with its folders, files, field values and field
// schema to the recycle bin (delete on the node, and on every isolated file or
// folder of the library: 403 otherwise). Files of the library
// already in the bin are purged, as lists do with their items.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	l, err := s.openWithNodeRight(ctx, p, id, acl.Delete)
	if err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.guardLibrary(ctx, p, l.ID, acl.Delete); err != nil {
			return err
		}
		if err := s.bin.PurgeWhere(ctx, "file", l.ID); err != nil {
			return err
		}
		now := s.now().UTC()
		if err := s.st.setLibraryDeleted(ctx, l.ID, &now); err != nil {
			return err
		}
		if s.index != nil {
			if err := s.index.RemoveContainer(ctx, l.ID); err != nil {
				return err
			}
		}
		payload, _ := json.Marshal(binLibrary{Library: l.out(l.fields)})
		_, err := s.bin.Add(ctx, BinEntry{NodeID: l.NodeID, Kind: "library", Title: l.Title, DeletedBy: p.UserID, Payload: payload, ResourceID: l.ID})
		return err
	})
}

// RestoreLibrary is the recycle-bin restore of kind "library" (409 when the
// slug was taken meanwhile).
func (s *Service) RestoreLibrary(ctx context.Context, payload json.RawMessage) error {
	var b binLibrary
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("library bin payload: %w", err)
	}
	l, err := s.st.libraryAny(ctx, b.Library.ID)
	if err != nil {
		return err
	}
	if other, err := s.st.libraryBySlug(ctx, l.NodeID, l.Slug); err == nil && other != l.ID {
		return slugTaken(l.Slug)
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.setLibraryDeleted(ctx, l.ID, nil); err != nil {
			return err
		}
		return s.reindexFiles(ctx, l.ID)
	})
}

// PurgeLibrary is the recycle-bin purge of kind "library": rows, ACL records
// and, after commit, every blob of its files' versions.
func (s *Service) PurgeLibrary(ctx context.Context, payload json.RawMessage) error {
	var b binLibrary
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("library bin payload: %w", err)
	}
	id := b.Library.ID
	keys, err := s.st.blobKeys(ctx, "f.library_id = ?", id)
	if err != nil {
		return err
	}
	if err := s.st.deleteLibrary(ctx, id); err != nil {
		return err
	}
	if err := s.acl.ForgetTree(ctx, libRef(id)); err != nil {
		return err
	}
	s.dropBlobsAfterCommit(ctx, keys)
	return nil
}

// ResolveSlug finds a library by node and slug (routes resolver).
func (s *Service) ResolveSlug(ctx context.Context, nodeID, slug string) (string, error) {
	id, err := s.st.libraryBySlug(ctx, nodeID, slug)
	if store.IsNotFound(err) {
		return "", fault.NotFound("library")
	}
	return id, err
}

// SlugOf returns the node and slug of a library (routes, menu links).
func (s *Service) SlugOf(ctx context.Context, id string) (string, string, error) {
	l, err := s.load(ctx, id)
	if err != nil {
		return "", "", err
	}
	return l.NodeID, l.Slug, nil
}
