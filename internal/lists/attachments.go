package lists

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// ItemAttachment is the record of CONTRACT.md.
type ItemAttachment struct {
	ID          string    `json:"id" format:"uuid"`
	FileName    string    `json:"fileName"`
	ContentType string    `json:"contentType"`
	Size        int64     `json:"size"`
	CreatedAt   time.Time `json:"createdAt"`
	CreatedBy   string    `json:"createdBy"`
	listID      string
	itemGUID    string
	blobKey     string
}

func attachmentRef(id string) acl.Ref { return acl.Ref{Type: acl.Attachment, ID: id} }

// Attachments lists the files of an item (view on the item).
func (s *Service) Attachments(ctx context.Context, p *auth.Principal, listID, ref string) ([]ItemAttachment, error) {
	_, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return nil, err
	}
	all, err := s.st.attachments(ctx, "item_guid = ?", it.GUID)
	if err != nil {
		return nil, err
	}
	out := []ItemAttachment{}
	for _, a := range all {
		lvl, err := s.acl.Level(ctx, p, attachmentRef(a.ID))
		if err != nil {
			return nil, err
		}
		if lvl >= acl.View {
			out = append(out, a)
		}
	}
	return out, nil
}

// Upload streams content to the blob store and records the attachment (add on the item).
func (s *Service) Upload(ctx context.Context, p *auth.Principal, listID, ref, fileName, contentType string, r io.Reader) (ItemAttachment, error) {
	if s.blobs == nil {
		return ItemAttachment{}, fault.New(fault.CodeUnavailable, "the blob store is not configured")
	}
	_, it, err := s.itemFor(ctx, p, listID, ref, acl.Add)
	if err != nil {
		return ItemAttachment{}, err
	}
	if _, _, err := mime.ParseMediaType(contentType); err != nil || contentType == "" {
		contentType = "application/octet-stream"
	}
	a := ItemAttachment{ID: uuid.NewString(), FileName: web.UploadName(fileName), ContentType: contentType, CreatedAt: s.now().UTC(),
		CreatedBy: p.UserID, listID: listID, itemGUID: it.GUID}
	a.blobKey = blob.KeyFor("attachments", a.ID)
	n, err := s.blobs.Put(ctx, a.blobKey, io.LimitReader(r, s.maxUpload+1))
	if err != nil {
		return ItemAttachment{}, fmt.Errorf("store attachment: %w", err)
	}
	drop := func() {
		if err := s.blobs.Delete(context.WithoutCancel(ctx), a.blobKey); err != nil {
			slog.WarnContext(ctx, "remove attachment blob", "err", err)
		}
	}
	if n > s.maxUpload {
		drop()
		return ItemAttachment{}, fault.New(fault.CodeTooLarge, "the file is larger than %d bytes", s.maxUpload).With("field", "file")
	}
	a.Size = n
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.insertAttachment(ctx, &a); err != nil {
			return err
		}
		parent := itemRef(it.GUID)
		return s.acl.Register(ctx, attachmentRef(a.ID), &parent)
	})
	if err != nil {
		drop()
		return ItemAttachment{}, err
	}
	return a, nil
}

// Download opens an attachment (view on the attachment).
func (s *Service) Download(ctx context.Context, p *auth.Principal, id string) (ItemAttachment, io.ReadSeekCloser, error) {
	if _, err := uuid.Parse(id); err != nil {
		return ItemAttachment{}, nil, fault.Validation("id", "the attachment id must be a UUID")
	}
	as, err := s.st.attachments(ctx, "id = ?", id)
	if err != nil {
		return ItemAttachment{}, nil, err
	}
	if len(as) == 0 {
		return ItemAttachment{}, nil, fault.NotFound("attachment")
	}
	a := as[0]
	// the item may be in the recycle bin: its files are not reachable then
	sc, err := s.load(ctx, a.listID)
	if err != nil {
		return ItemAttachment{}, nil, err
	}
	if _, err := s.findItem(ctx, sc, a.itemGUID); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return ItemAttachment{}, nil, fault.NotFound("attachment")
		}
		return ItemAttachment{}, nil, err
	}
	// checked after existence: a missing attachment is 404, a hidden one 403
	if err := s.acl.Require(ctx, p, attachmentRef(id), acl.View); err != nil {
		return ItemAttachment{}, nil, err
	}
	rc, err := s.blobs.Get(ctx, a.blobKey)
	if err != nil {
		return ItemAttachment{}, nil, fmt.Errorf("open attachment: %w", blob.Unreachable(err))
	}
	return a, blob.NewRangeReader(ctx, s.blobs, a.blobKey, a.Size, rc), nil
}

// DeleteAttachment removes an attachment (delete on the attachment).
func (s *Service) DeleteAttachment(ctx context.Context, p *auth.Principal, listID, ref, id string) error {
	_, it, err := s.itemFor(ctx, p, listID, ref, acl.View)
	if err != nil {
		return err
	}
	if _, err := uuid.Parse(id); err != nil {
		return fault.NotFound("attachment")
	}
	as, err := s.st.attachments(ctx, "id = ? AND item_guid = ?", id, it.GUID)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		return fault.NotFound("attachment")
	}
	if err := s.acl.Require(ctx, p, attachmentRef(id), acl.Delete); err != nil {
		return err
	}
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		return s.dropAttachments(ctx, as)
	})
}

// purgeAttachments removes every attachment of an item (rows, ACL, blobs after commit).
func (s *Service) purgeAttachments(ctx context.Context, listID, guid string) error {
	as, err := s.st.attachments(ctx, "list_id = ? AND item_guid = ?", listID, guid)
	if err != nil {
		return err
	}
	return s.dropAttachments(ctx, as)
}

func (s *Service) dropAttachments(ctx context.Context, as []ItemAttachment) error {
	for _, a := range as {
		if _, err := s.db.W(ctx).ExecContext(ctx, "DELETE FROM list_attachments WHERE id = ?", a.ID); err != nil {
			return fmt.Errorf("delete attachment: %w", err)
		}
		if err := s.acl.Forget(ctx, attachmentRef(a.ID)); err != nil {
			return err
		}
		key := a.blobKey
		store.AfterCommit(ctx, func() {
			if s.blobs != nil {
				if err := s.blobs.Delete(context.WithoutCancel(ctx), key); err != nil {
					slog.WarnContext(ctx, "remove attachment blob", "err", err)
				}
			}
		})
	}
	return nil
}

func (s *Store) insertAttachment(ctx context.Context, a *ItemAttachment) error {
	_, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO list_attachments (id, list_id, item_guid, file_name, content_type, size, blob_key,
		created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.listID, a.itemGUID, a.FileName, a.ContentType, a.Size, a.blobKey, a.CreatedBy, a.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert attachment: %w", err)
	}
	return nil
}

func (s *Store) attachments(ctx context.Context, where string, args ...any) ([]ItemAttachment, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT id, list_id, item_guid, file_name, content_type, size, blob_key,
		COALESCE(created_by, ''), created_at FROM list_attachments WHERE `+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("attachments: %w", err)
	}
	defer rows.Close()
	var out []ItemAttachment
	for rows.Next() {
		var a ItemAttachment
		if err := rows.Scan(&a.ID, &a.listID, &a.itemGUID, &a.FileName, &a.ContentType, &a.Size, &a.blobKey, &a.CreatedBy, &a.CreatedAt); err != nil {
			return nil, err
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
	}
	return out, rows.Err()
}
