package libraries

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// Library lookups (SPEC.md, List field rule 3): a lookup field names a target
// library and a display column, lookupFieldId = name (the default),
// item_number, item_type, mime_type or the UUID of a custom field. Lists
// call these methods through an interface; they never read this package's tables.

// CheckTarget validates a lookup's target library and display column for
// field settings: the caller must view the library (a missing or hidden one
// answers 404 alike), lookupNodeId when given must be its node.
func (s *Service) CheckTarget(ctx context.Context, p *auth.Principal, libraryID, nodeID, fieldRef string) error {
	ctx = asViewer(ctx, p)
	notFound := fault.NotFound("lookup library").With("field", "settings.lookupLibraryId")
	l, err := s.load(ctx, libraryID)
	if fault.Is(err, fault.CodeNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	if lvl, err := s.acl.Level(ctx, p, libRef(l.ID)); err != nil {
		return err
	} else if lvl < acl.View {
		return notFound
	}
	if nodeID != "" && !strings.EqualFold(l.NodeID, nodeID) {
		return fault.Validation("settings.lookupNodeId", "the lookup library does not belong to lookupNodeId")
	}
	if _, err := displayColumn(l, fieldRef); err != nil {
		return err
	}
	return nil
}

// displayColumn returns the custom field a display column names (nil for a system column).
func displayColumn(l *lib, ref string) (*field.Def, error) {
	switch ref {
	case "", "name", "item_number", "item_type", "mime_type":
		return nil, nil
	}
	if f, ok := l.resolve(ref); ok {
		return f, nil
	}
	return nil, fault.Validation("settings.lookupFieldId", "lookupFieldId is not a column of the lookup library")
}

// display renders the lookup display of a file.
func display(f *File, col string, cf *field.Def) string {
	switch {
	case cf != nil:
		return field.DisplayText(cf, f.value(cf))
	case col == "item_number":
		return strconv.FormatInt(f.Number, 10)
	case col == "item_type":
		return f.itemType()
	case col == "mime_type":
		return f.MimeType
	}
	return f.Name
}

// Display returns the lookup display of file number n of a library; a missing
// library or file and one the caller cannot view answer fault.NotFound alike.
func (s *Service) Display(ctx context.Context, p *auth.Principal, libraryID, fieldRef string, n int64) (string, error) {
	ctx = asViewer(ctx, p)
	l, err := s.load(ctx, libraryID)
	if err != nil {
		return "", err
	}
	cf, err := displayColumn(l, fieldRef)
	if err != nil {
		return "", err
	}
	f, err := s.st.file(ctx, l.ID, "number", n)
	if store.IsNotFound(err) {
		return "", fault.NotFound("file")
	}
	if err != nil {
		return "", err
	}
	if lvl, err := s.acl.Level(ctx, p, fileRef(f.GUID)); err != nil {
		return "", err
	} else if lvl < acl.View {
		return "", fault.NotFound("file")
	}
	if cf != nil && isRef(cf) {
		if err := s.shown(ctx, l, f); err != nil {
			return "", err
		}
	}
	return display(f, fieldRef, cf), nil
}

const optionScan = 5000

// Options offers up to limit files and folders of a library that the caller
// can view, by name, whose display contains q (case-insensitive).
// accessDenied is true when the caller cannot view the library (or it does not exist).
func (s *Service) Options(ctx context.Context, p *auth.Principal, libraryID, fieldRef, q string, limit int) ([]field.LookupValue, bool, error) {
	ctx = asViewer(ctx, p)
	l, err := s.load(ctx, libraryID)
	if fault.Is(err, fault.CodeNotFound) {
		return []field.LookupValue{}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if lvl, err := s.acl.Level(ctx, p, libRef(l.ID)); err != nil {
		return nil, false, err
	} else if lvl < acl.View {
		return []field.LookupValue{}, true, nil
	}
	cf, err := displayColumn(l, fieldRef)
	if err != nil {
		return nil, false, fault.Validation("lookupFieldId", "lookupFieldId is not a column of the target library")
	}
	needle := field.Lower(strings.TrimSpace(q))
	out := []field.LookupValue{}
	var after string
	var afterNo int64
	for scanned := 0; scanned < optionScan && len(out) < limit; {
		batch, err := s.st.byName(ctx, l.ID, after, afterNo, 200)
		if err != nil {
			return nil, false, err
		}
		if cf != nil && isRef(cf) {
			if err := s.shown(ctx, l, batch...); err != nil {
				return nil, false, err
			}
		}
		for _, f := range batch {
			scanned++
			after, afterNo = nameKey(f.Name), f.Number
			d := display(f, fieldRef, cf)
			if needle != "" && !strings.Contains(field.Lower(d), needle) {
				continue
			}
			if lvl, err := s.acl.Level(ctx, p, fileRef(f.GUID)); err != nil {
				return nil, false, err
			} else if lvl < acl.View {
				continue
			}
			if out = append(out, field.LookupValue{ItemID: f.Number, Display: d}); len(out) == limit {
				break
			}
		}
		if len(batch) < 200 {
			break
		}
	}
	return out, false, nil
}

// byName reads live files of a library in (name_key, number) order after a position.
func (s *Store) byName(ctx context.Context, libraryID, afterKey string, afterNo int64, limit int) ([]*File, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+` FROM library_files WHERE library_id = ? AND deleted_at IS NULL
		AND (name_key > ? OR (name_key = ? AND number > ?)) ORDER BY name_key, number LIMIT ?`, libraryID, afterKey, afterKey, afterNo, limit)
	if err != nil {
		return nil, fmt.Errorf("files by name: %w", err)
	}
	defer rows.Close()
	var out []*File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
