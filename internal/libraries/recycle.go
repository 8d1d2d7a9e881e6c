package libraries

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// A deleted file or folder stays in library_files with deleted_at and the id
// of its recycle-bin entry (trash_id), together with everything below it, so
// that restore brings back exactly the subtree with its field values,
// versions and rights.

type binFile struct {
	LibraryID string `json:"libraryId"`
	TrashID   string `json:"trashId"`
	Number    int64  `json:"number"`
	Name      string `json:"name"`
	ItemType  string `json:"item_type"`
	Count     int    `json:"count" doc:"files and folders taken, the entry itself included"`
}

// DeletedFile is the answer of a file or folder delete.
type DeletedFile struct {
	RecycleBinEntryID string `json:"recycleBinEntryId" format:"uuid" doc:"the recycle-bin entry that holds the file or folder (restore it with POST /nodes/{nodeId}/recycle-bin/{entryId}/restore)"`
}

// DeleteFile moves a file, or a folder with its content, to the recycle bin
// (delete on the file or folder, and on every isolated file or folder below it:
// 403 otherwise, nothing moves) and answers the bin entry's id.
func (s *Service) DeleteFile(ctx context.Context, p *auth.Principal, libraryID, ref string) (DeletedFile, error) {
	l, f, err := s.openFile(ctx, p, libraryID, ref, acl.Delete)
	if err != nil {
		return DeletedFile{}, err
	}
	var out DeletedFile
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		s.filesChanged(ctx)
		tree, err := s.st.subtree(ctx, l.ID, f.Number)
		if err != nil {
			return err
		}
		if err := s.guardSubtree(ctx, p, f, tree, acl.Delete); err != nil {
			return err
		}
		if err := s.checkLocks(ctx, p, tree); err != nil {
			return err
		}
		guids := make([]string, len(tree))
		for i, t := range tree {
			guids[i] = t.GUID
		}
		trashID := uuid.NewString()
		if err := s.st.trash(ctx, trashID, s.now().UTC(), guids); err != nil {
			return err
		}
		if err := s.unindex(ctx, guids...); err != nil {
			return err
		}
		if err := s.emitFile(ctx, "file.deleted", l, f, p); err != nil {
			return err
		}
		payload, _ := json.Marshal(binFile{LibraryID: l.ID, TrashID: trashID, Number: f.Number, Name: f.Name, ItemType: f.itemType(), Count: len(tree)})
		out.RecycleBinEntryID, err = s.bin.Add(ctx, BinEntry{NodeID: l.NodeID, Kind: "file", Title: f.Name, DeletedBy: p.UserID, ScopeID: l.ID, Payload: payload, ResourceID: f.GUID})
		return err
	})
	if err != nil {
		return DeletedFile{}, err
	}
	return out, nil
}

// RestoreFile is the recycle-bin restore of kind "file" (inside the bin's
// transaction, the restoring caller bound to ctx). The entry goes back to its
// folder, or to the library root when that folder is gone; 409 when its name
// is taken there meanwhile. It emits one file.restored for the entry (a
// folder's content comes back with it, without events of its own).
func (s *Service) RestoreFile(ctx context.Context, payload json.RawMessage) error {
	var b binFile
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("file bin payload: %w", err)
	}
	l, err := s.load(ctx, b.LibraryID)
	if fault.Is(err, fault.CodeNotFound) {
		return fault.Conflict("the library of this entry is in the recycle bin; restore it first")
	} else if err != nil {
		return err
	}
	s.filesChanged(ctx)
	files, err := s.st.trashed(ctx, b.TrashID)
	if err != nil {
		return err
	}
	var top *File
	for _, f := range files {
		if f.Number == b.Number {
			top = f
		}
	}
	if top == nil {
		return fault.NotFound("file")
	}
	if err := s.rootIfOrphaned(ctx, top); err != nil {
		return err
	}
	if _, err := s.st.fileByName(ctx, b.LibraryID, top.ParentNo, nameKey(top.Name)); err == nil {
		return fault.Conflict("the folder already has an entry named %q; rename or delete it first", top.Name)
	}
	if err := s.st.untrash(ctx, b.TrashID); err != nil {
		if store.IsUnique(err) {
			return fault.Conflict("the folder already has an entry named %q", top.Name)
		}
		return err
	}
	if err := s.emitFile(ctx, "file.restored", l, top, auth.FromContext(ctx)); err != nil {
		return err
	}
	if s.index == nil {
		return nil
	}
	for _, f := range files {
		if err := s.indexFile(ctx, l, f); err != nil {
			return err
		}
	}
	return nil
}

// rootIfOrphaned moves a restored entry to the library root when its folder
// no longer exists.
func (s *Service) rootIfOrphaned(ctx context.Context, top *File) error {
	if top.ParentNo == 0 {
		return nil
	}
	_, err := s.st.file(ctx, top.LibraryID, "number", top.ParentNo)
	if !store.IsNotFound(err) {
		return err
	}
	top.ParentNo = 0
	if err := s.st.updateFile(ctx, top); err != nil {
		return err
	}
	lib := libRef(top.LibraryID)
	return s.acl.Move(ctx, fileRef(top.GUID), &lib)
}

// PurgeFile is the recycle-bin purge of kind "file": rows, versions, ACL
// records and, after commit, the blobs of every version.
func (s *Service) PurgeFile(ctx context.Context, payload json.RawMessage) error {
	var b binFile
	if err := json.Unmarshal(payload, &b); err != nil {
		return fmt.Errorf("file bin payload: %w", err)
	}
	files, err := s.st.trashed(ctx, b.TrashID)
	if err != nil {
		return err
	}
	keys, err := s.st.blobKeys(ctx, "f.trash_id = ?", b.TrashID)
	if err != nil {
		return err
	}
	refs := make([]acl.Ref, len(files))
	for i, f := range files {
		refs[i] = fileRef(f.GUID)
	}
	if err := s.st.deleteTrashed(ctx, b.TrashID); err != nil {
		return err
	}
	if err := s.acl.Forget(ctx, refs...); err != nil {
		return err
	}
	s.dropBlobsAfterCommit(ctx, keys)
	return nil
}
