package lists

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/store"
)

// importOf finds an import of a list that p may follow: view on the list,
// and the import is p's own (or p is an administrator); 404 otherwise.
func (s *Service) importOf(ctx context.Context, p *auth.Principal, listID, importID string) (*jobs.Job, error) {
	if _, err := s.open(ctx, p, listID, acl.View); err != nil {
		return nil, err
	}
	if _, ok := store.CanonicalUUID(importID); !ok {
		return nil, fault.Validation("importId", "the import id must be a UUID")
	}
	j, err := s.jobs.Get(ctx, importID)
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) || fault.Is(err, fault.CodeValidation) {
			return nil, fault.NotFound("import")
		}
		return nil, err
	}
	var pl importPayload
	if j.Type != jobImport || j.Decode(&pl) != nil || pl.ListID != listID || (j.ActorID != p.UserID && !p.IsAdmin) {
		return nil, fault.NotFound("import")
	}
	return j, nil
}

// ImportState reports an import's progress and outcome.
func (s *Service) ImportState(ctx context.Context, p *auth.Principal, listID, importID string) (ImportStatus, error) {
	j, err := s.importOf(ctx, p, listID, importID)
	if err != nil {
		return ImportStatus{}, err
	}
	return importStatusOf(listID, j), nil
}

// ImportReport streams the error report of an import as CSV (row, column,
// message), as far as the import got.
func (s *Service) ImportReport(ctx context.Context, p *auth.Principal, listID, importID string) (func(w io.Writer) error, error) {
	j, err := s.importOf(ctx, p, listID, importID)
	if err != nil {
		return nil, err
	}
	var st importState
	if len(j.Result) > 0 {
		if err := json.Unmarshal(j.Result, &st); err != nil {
			return nil, fmt.Errorf("import %s: bad result: %w", j.ID, err)
		}
	}
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, "\uFEFFrow,column,message\n"); err != nil {
			return err
		}
		for _, k := range st.Segments {
			rc, err := s.blobs.Get(ctx, k)
			if errors.Is(err, blob.ErrNotFound) {
				continue
			}
			if err != nil {
				return fmt.Errorf("open import report: %w", err)
			}
			_, err = io.Copy(w, rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}, nil
}
