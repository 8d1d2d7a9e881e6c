package libraries

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// sniffable are the declared types whose bytes http.DetectContentType
// recognises by signature: for them a different sniffed type is a mismatch.
func sniffable(t string) bool {
	for _, p := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	switch t {
	case "application/pdf", "application/zip", "application/x-gzip", "application/gzip", "application/wasm", "text/html",
		"application/postscript", "application/ogg", "application/x-rar-compressed", "application/vnd.ms-fontobject":
		return true
	}
	return false
}

// ContentType decides the stored type of an upload from the type declared by
// the part and the type sniffed from its first 512 bytes: a missing,
// malformed or generic (application/octet-stream) declaration takes the
// sniffed type; a declaration of a type that has a byte signature (images,
// audio, video, fonts, PDF, ZIP, gzip, HTML, …) that the bytes do not carry
// is corrected to the sniffed type; any other declaration (text/csv, Office
// documents, which sniff as plain text or ZIP) is kept.
func ContentType(declared, sniffed string) string {
	sn, _, err := mime.ParseMediaType(sniffed)
	if err != nil {
		sn = "application/octet-stream"
	}
	dt, params, err := mime.ParseMediaType(declared)
	if err != nil || dt == "" || dt == "application/octet-stream" || !strings.Contains(dt, "/") {
		return sniffed
	}
	if sniffable(dt) && dt != sn {
		return sniffed
	}
	return mime.FormatMediaType(dt, params)
}

// Upload streams content to the blob store and records a new file in the
// folder, or a new version of the file of that name (add on the library or
// parent folder; a new version also needs edit on the existing file). The
// bytes are never held in memory; over maxUpload answers 413 and keeps nothing.
// created is false when a version was added. finish (may be nil) runs once
// the bytes are stored and before anything is recorded: an error from it
// drops the bytes and is returned (the handler checks the rest of the form there).
func (s *Service) Upload(ctx context.Context, p *auth.Principal, libraryID, parentID, fileName, declared string, r io.Reader, finish func() error) (out FileOut, created bool, err error) {
	ctx = asViewer(ctx, p)
	l, err := s.loadParam(ctx, libraryID)
	if err != nil {
		return FileOut{}, false, err
	}
	parentNo, err := s.parseParent(ctx, l, parentID)
	if err != nil {
		return FileOut{}, false, err
	}
	parent, _, err := s.folderRef(ctx, l, parentNo)
	if err != nil {
		return FileOut{}, false, err
	}
	if err := s.need(ctx, p, parent, acl.Add); err != nil {
		return FileOut{}, false, err
	}
	name, err := checkName(web.UploadName(fileName))
	if err != nil {
		return FileOut{}, false, err
	}
	if err := s.checkReplace(ctx, p, l.ID, parentNo, name); err != nil {
		return FileOut{}, false, err
	}
	br := bufio.NewReaderSize(r, 512)
	head, _ := br.Peek(512)
	v := &FileVersion{ID: uuid.NewString(), MimeType: ContentType(declared, http.DetectContentType(head)), CreatedBy: p.UserID, CreatedAt: s.now().UTC()}
	v.blobKey = "libraries/" + l.ID + "/" + uuid.NewString()
	n, err := s.blobs.Put(ctx, v.blobKey, io.LimitReader(br, s.maxUpload+1))
	if err != nil {
		return FileOut{}, false, fmt.Errorf("store file: %w", err)
	}
	if n > s.maxUpload {
		s.dropBlob(ctx, v.blobKey)
		return FileOut{}, false, fault.New(fault.CodeTooLarge, "the file is larger than %d bytes", s.maxUpload).With("field", "file")
	}
	v.Size = n
	if finish != nil {
		if err := finish(); err != nil {
			s.dropBlob(ctx, v.blobKey)
			return FileOut{}, false, err
		}
	}
	var f *File
	record := func() error {
		return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
			s.filesChanged(ctx)
			f, created, err = s.recordUpload(ctx, p, l, parent, parentNo, name, v)
			if err != nil {
				return err
			}
			if err := s.queueText(ctx, f); err != nil {
				return err
			}
			if err := s.queuePreview(ctx, f); err != nil {
				return err
			}
			ev := "file.updated"
			if created {
				ev = "file.created"
			}
			if err := s.emitFile(ctx, ev, l, f, p); err != nil {
				return err
			}
			if created {
				return s.indexCreated(ctx, l, f)
			}
			return s.indexFile(ctx, l, f)
		})
	}
	// Two uploads of the same new name race: the loser's insert hits the
	// unique name index (its transaction is void on PostgreSQL); the row now
	// exists, so a fresh transaction records the upload as a new version.
	for attempt := 0; ; attempt++ {
		err = record()
		if !errors.Is(err, errNameRaced) || attempt == 3 {
			break
		}
	}
	if errors.Is(err, errNameRaced) {
		err = fault.Conflict("another upload of %q finished first; try again", name)
	}
	if err != nil {
		s.dropBlob(ctx, v.blobKey)
		return FileOut{}, false, err
	}
	o, err := s.outOne(ctx, l, f)
	return o, created, err
}

// checkReplace refuses an upload over a folder's name or a file the caller
// cannot view (409 alike) and, over a visible file, a caller without edit on it (403).
func (s *Service) checkReplace(ctx context.Context, p *auth.Principal, libraryID string, parentNo int64, name string) error {
	cur, err := s.st.fileByName(ctx, libraryID, parentNo, nameKey(name))
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.IsFolder {
		return nameTaken(name)
	}
	// an entry the caller cannot view answers the same 409 as a folder of
	// that name, not 403: names are unique per folder, so that much is
	// unavoidable, but nothing more about the hidden file is told
	lvl, err := s.acl.Level(ctx, p, fileRef(cur.GUID))
	if err != nil {
		return err
	}
	if lvl < acl.View {
		return nameTaken(name)
	}
	if err := s.need(ctx, p, fileRef(cur.GUID), acl.Edit); err != nil {
		return err
	}
	return s.checkLock(ctx, p, cur.GUID)
}

// errNameRaced: a concurrent upload inserted the same new name first.
var errNameRaced = errors.New("libraries: concurrent upload of the same name")

// recordUpload writes the file row (new or updated) and its version in the caller's transaction.
func (s *Service) recordUpload(ctx context.Context, p *auth.Principal, l *lib, parent acl.Ref, parentNo int64, name string, v *FileVersion) (*File, bool, error) {
	if err := s.checkReplace(ctx, p, l.ID, parentNo, name); err != nil {
		return nil, false, err
	}
	f, err := s.st.fileByName(ctx, l.ID, parentNo, nameKey(name))
	created := store.IsNotFound(err)
	if err != nil && !created {
		return nil, false, err
	}
	if created {
		f = &File{GUID: uuid.NewString(), LibraryID: l.ID, ParentNo: parentNo, Name: name, Inherits: true,
			Values: map[string]json.RawMessage{}, CreatedBy: p.UserID, CreatedAt: v.CreatedAt}
		if f.Number, err = s.st.allocNumber(ctx, l.ID); err != nil {
			return nil, false, err
		}
	}
	f.Size, f.MimeType, f.BlobKey, f.VersionID, f.UpdatedBy, f.UpdatedAt = v.Size, v.MimeType, v.blobKey, v.ID, p.UserID, v.CreatedAt
	if created {
		if err := s.st.insertFile(ctx, f); err != nil {
			if store.IsUnique(err) {
				return nil, false, errNameRaced
			}
			return nil, false, err
		}
		if err := s.acl.Register(ctx, fileRef(f.GUID), &parent); err != nil {
			return nil, false, err
		}
	} else if err := s.st.updateFile(ctx, f); err != nil {
		return nil, false, err
	}
	if err := s.st.insertVersion(ctx, f.GUID, v); err != nil {
		return nil, false, err
	}
	return f, created, nil
}

func (s *Service) dropBlob(ctx context.Context, key string) {
	if err := s.blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
		slog.WarnContext(ctx, "remove library blob", "key", key, "err", err)
	}
}

// dropBlobsAfterCommit deletes blobs once the transaction that forgot them commits.
func (s *Service) dropBlobsAfterCommit(ctx context.Context, keys []string) {
	if len(keys) == 0 {
		return
	}
	store.AfterCommit(ctx, func() {
		for _, k := range keys {
			s.dropBlob(ctx, k)
		}
	})
}
