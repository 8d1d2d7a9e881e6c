package lists

import (
	"context"
	"log/slog"
	"strconv"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// QuickUpdate is one changed row.
type QuickUpdate struct {
	ID          int64  `json:"id"`
	FieldValues Values `json:"fieldValues"`
}

// QuickCreate is one new row.
type QuickCreate struct {
	ClientRowID string `json:"clientRowId"`
	FieldValues Values `json:"fieldValues"`
}

// QuickRow is a saved row.
type QuickRow struct {
	ClientRowID string         `json:"clientRowId,omitempty"`
	ID          int64          `json:"id"`
	FieldValues map[string]any `json:"field_values"`
}

// QuickError is one failed cell. Every key is present: itemId is null for a
// create row, clientRowId null for an update row, fieldId null when the whole
// row failed.
type QuickError struct {
	ItemID      *int64  `json:"itemId"`
	ClientRowID *string `json:"clientRowId"`
	FieldID     *string `json:"fieldId"`
	Message     string  `json:"message"`
}

// orNull is nil for an empty string.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// QuickResult is the answer of quick edit.
type QuickResult struct {
	Updated []QuickRow   `json:"updated"`
	Created []QuickRow   `json:"created"`
	Errors  []QuickError `json:"errors"`
}

// MaxQuickRows bounds one quick-edit batch.
const MaxQuickRows = 500

// QuickEdit saves rows independently: each row is its own transaction, errors
// are reported per cell and nothing else is rolled back. Updates need edit on
// the item, creates need add on the list.
func (s *Service) QuickEdit(ctx context.Context, p *auth.Principal, listID string, updates []QuickUpdate, creates []QuickCreate) (QuickResult, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return QuickResult{}, err
	}
	if len(updates)+len(creates) > MaxQuickRows {
		return QuickResult{}, fault.Validation("updates", "at most %d rows per quick edit", MaxQuickRows)
	}
	res, _ := s.quickRows(ctx, p, sc, updates, creates, false)
	if ctx.Err() != nil {
		slog.InfoContext(ctx, "quick edit cancelled: the client went away", "list", listID,
			"saved", len(res.Updated)+len(res.Created), "rows", len(updates)+len(creates))
	}
	return res, nil
}

// quickRows saves the rows of a quick edit. Validation failures and missing
// rights are reported per row; any other failure is reported per row too,
// unless strict, where it ends the call with that error (the caller runs
// the rows in one transaction and rolls it back).
func (s *Service) quickRows(ctx context.Context, p *auth.Principal, sc *schema, updates []QuickUpdate, creates []QuickCreate, strict bool) (QuickResult, error) {
	res := QuickResult{Updated: []QuickRow{}, Created: []QuickRow{}, Errors: []QuickError{}}
	for _, u := range updates {
		id := u.ID
		rowErr := func(msg string) { res.Errors = append(res.Errors, QuickError{ItemID: &id, Message: msg}) }
		if ctx.Err() != nil {
			// The client went away: the rows not yet saved are not tried.
			rowErr(rowCancelled)
			continue
		}
		it, err := s.findItem(ctx, sc, strconv.FormatInt(u.ID, 10))
		if err != nil {
			if strict && !fault.Is(err, fault.CodeNotFound) {
				return res, err
			}
			rowErr(rowFailure(ctx, err, "item not found"))
			continue
		}
		if err := s.acl.Require(ctx, p, itemRef(it.GUID), acl.Edit); err != nil {
			if strict && !fault.Is(err, fault.CodeForbidden) && !fault.Is(err, fault.CodeNotFound) {
				return res, err
			}
			rowErr(rowFailure(ctx, err, "edit right on this item is required"))
			continue
		}
		errs, err := s.update(ctx, p, sc, it, u.FieldValues)
		if err != nil {
			if strict {
				return res, err
			}
			rowErr(errText(ctx, err))
			continue
		}
		if errs != nil {
			for _, e := range errs {
				res.Errors = append(res.Errors, QuickError{ItemID: &id, FieldID: orNull(e.FieldID), Message: e.Message})
			}
			continue
		}
		res.Updated = append(res.Updated, QuickRow{ID: it.Number, FieldValues: it.Values})
	}
	if len(creates) == 0 {
		return res, nil
	}
	// A failure to read the right fails every create row rather than
	// the whole answer: the updates above are saved and reported.
	lvl, lvlErr := s.acl.Level(ctx, p, listRef(sc.list.ID))
	if strict && lvlErr != nil {
		return res, lvlErr
	}
	for _, c := range creates {
		rowErr := func(msg string) {
			res.Errors = append(res.Errors, QuickError{ClientRowID: orNull(c.ClientRowID), Message: msg})
		}
		switch {
		case ctx.Err() != nil:
			rowErr(rowCancelled)
			continue
		case lvlErr != nil:
			rowErr(errText(ctx, lvlErr))
			continue
		case lvl < acl.Add:
			rowErr("add right on this list is required")
			continue
		}
		it, errs, err := s.create(ctx, p, sc, c.FieldValues)
		if err != nil {
			if strict {
				return res, err
			}
			rowErr(errText(ctx, err))
			continue
		}
		if errs != nil {
			for _, e := range errs {
				res.Errors = append(res.Errors, QuickError{ClientRowID: orNull(c.ClientRowID), FieldID: orNull(e.FieldID), Message: e.Message})
			}
			continue
		}
		res.Created = append(res.Created, QuickRow{ClientRowID: c.ClientRowID, ID: it.Number, FieldValues: it.Values})
	}
	return res, nil
}

// rowFailure is the message of a row whose lookup or right check failed:
// the domain message for not found and forbidden, else what errText says
// (a database failure is not reported as "not found").
func rowFailure(ctx context.Context, err error, domain string) string {
	if fault.Is(err, fault.CodeNotFound) {
		return "item not found"
	}
	if fault.Is(err, fault.CodeForbidden) {
		return domain
	}
	return errText(ctx, err)
}

// SyncState returns the current state of items by number (view on list and item);
// items that are gone or hidden are left out.
func (s *Service) SyncState(ctx context.Context, p *auth.Principal, listID string, ids []int64) ([]SyncItem, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return nil, err
	}
	out := []SyncItem{}
	var its []*Item
	for _, id := range ids {
		it, err := s.findItem(ctx, sc, strconv.FormatInt(id, 10))
		if fault.Is(err, fault.CodeNotFound) {
			continue
		}
		if err != nil {
			// A failed lookup must not be reported as an item that is gone.
			return nil, err
		}
		lvl, err := s.acl.Level(ctx, p, itemRef(it.GUID))
		if err != nil {
			return nil, err
		}
		if lvl >= acl.View {
			its = append(its, it)
		}
	}
	var uids []string
	for _, it := range its {
		uids = append(uids, it.UpdatedBy)
	}
	names, err := s.st.userNames(ctx, uids)
	if err != nil {
		return nil, err
	}
	for _, it := range its {
		it.UpdatedName = names[it.UpdatedBy]
		out = append(out, syncItem(it))
	}
	return out, nil
}

// CanViewItem reports whether p may view item number n (for the live stream).
func (s *Service) CanViewItem(ctx context.Context, p *auth.Principal, listID string, n int64) bool {
	ctx = asViewer(ctx, p)
	sc, err := s.load(ctx, listID)
	if err != nil {
		return false
	}
	it, err := s.findItem(ctx, sc, strconv.FormatInt(n, 10))
	if err != nil {
		return false
	}
	lvl, err := s.acl.Level(ctx, p, itemRef(it.GUID))
	return err == nil && lvl >= acl.View
}
