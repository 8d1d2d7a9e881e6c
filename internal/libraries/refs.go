package libraries

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/principals"
	"coreportal/internal/store"
)

// Person and lookup values of library fields are stored in field_values as
// the compact reference text of internal/field/refs.go (a JSON string such as
// "u:<uuid>,g:<uuid>" or "12,40"), never with display text; displays are
// resolved at read time (shown), batched: one look-up of the principal name
// cache for every subject and one query per target library.

func isRef(fd *field.Def) bool { return fd.Type == field.Person || fd.Type == field.Lookup }

// storedValue is the stored JSON of a normalised value.
func storedValue(fd *field.Def, v any) (json.RawMessage, error) {
	if isRef(fd) {
		c, _ := field.CompactValue(fd, v)
		return json.Marshal(c)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode value: %w", err)
	}
	return j, nil
}

// valueOf decodes a stored value; person and lookup values come back typed
// (field.Subject, field.LookupValue or slices of them) without displays,
// from the compact text or the JSON of files written before.
func valueOf(fd *field.Def, raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	if !isRef(fd) || v == nil {
		return v
	}
	c, _ := field.CompactValue(fd, v)
	if c == "" {
		return nil
	}
	return field.DecodeStored(fd, c)
}

// shown resolves the person and lookup values of files for display: f.shown
// holds them, typed and with displays.
func (s *Service) shown(ctx context.Context, l *lib, files ...*File) error {
	var keys []principals.Key
	type tk struct{ lib, ref string }
	wanted := map[tk][]int64{}
	hasRefs := false
	for _, f := range files {
		f.shown = map[string]any{}
		for _, fd := range l.fields {
			if !isRef(fd) {
				continue
			}
			raw, ok := f.Values[fd.ID]
			if !ok {
				continue
			}
			v := valueOf(fd, raw)
			f.shown[fd.ID] = v
			hasRefs = true
			for _, sub := range field.Subjects(v) {
				keys = append(keys, principals.Key{Type: sub.PrincipalType, ID: sub.ID})
			}
			if fd.Type == field.Lookup {
				k := tk{fd.Settings.LookupLibraryID, fd.Settings.LookupFieldID}
				for _, lv := range field.Lookups(v) {
					wanted[k] = append(wanted[k], lv.ItemID)
				}
			}
		}
	}
	if !hasRefs {
		return nil
	}
	names, err := principals.For(s.db).Lookup(ctx, keys)
	if err != nil {
		return err
	}
	found := map[tk]map[int64]string{}
	if depth, _ := ctx.Value(shownDepthKey{}).(int); depth < 2 {
		inner := context.WithValue(ctx, shownDepthKey{}, depth+1)
		for k, numbers := range wanted {
			if found[k], err = s.Displays(inner, k.lib, k.ref, numbers); err != nil {
				return err
			}
		}
	}
	for _, f := range files {
		for _, fd := range l.fields {
			switch v := f.shown[fd.ID].(type) {
			case field.Subject:
				v.Display = names[principals.Key{Type: v.PrincipalType, ID: v.ID}]
				f.shown[fd.ID] = v
			case []field.Subject:
				for i := range v {
					v[i].Display = names[principals.Key{Type: v[i].PrincipalType, ID: v[i].ID}]
				}
			case field.LookupValue:
				v.Display = found[tk{fd.Settings.LookupLibraryID, fd.Settings.LookupFieldID}][v.ItemID]
				f.shown[fd.ID] = v
			case []field.LookupValue:
				m := found[tk{fd.Settings.LookupLibraryID, fd.Settings.LookupFieldID}]
				for i := range v {
					v[i].Display = m[v[i].ItemID]
				}
			}
		}
	}
	return nil
}

type shownDepthKey struct{}

// outs renders files with their displays resolved.
func (s *Service) outs(ctx context.Context, l *lib, files ...*File) ([]FileOut, error) {
	if err := s.shown(ctx, l, files...); err != nil {
		return nil, err
	}
	flags, err := s.previewFlags(ctx, files)
	if err != nil {
		return nil, err
	}
	out := make([]FileOut, 0, len(files))
	for _, f := range files {
		o := f.out(l.fields)
		o.HasPreview, o.HasPreviewPDF = flags[f.VersionID][0], flags[f.VersionID][1]
		out = append(out, o)
	}
	return out, nil
}

// outOne renders one file with its displays resolved.
func (s *Service) outOne(ctx context.Context, l *lib, f *File) (FileOut, error) {
	o, err := s.outs(ctx, l, f)
	if err != nil {
		return FileOut{}, err
	}
	return o[0], nil
}

// Displays returns the lookup displays of files of a library by number that
// the caller bound to ctx (auth.FromContext; none: no file) can view, the
// folder listing's rule (view on the parent folder or library and not a file
// hidden by broken inheritance, or a file granted to the caller), asked once
// per parent folder; missing and hidden files and libraries are absent from
// the map (the referring value shows display "").
func (s *Service) Displays(ctx context.Context, libraryID, fieldRef string, numbers []int64) (map[int64]string, error) {
	out := map[int64]string{}
	l, err := s.load(ctx, libraryID)
	if err != nil {
		return out, nil //nolint:nilerr // a missing target shows empty displays
	}
	p := auth.FromContext(ctx)
	if p == nil {
		return out, nil
	}
	folders := map[int64]*acl.Visibility{}
	sees := func(f *File) (bool, error) {
		v, seen := folders[f.ParentNo]
		if !seen {
			parent, _, err := s.folderRef(ctx, l, f.ParentNo)
			if err != nil {
				if fault.Is(err, fault.CodeNotFound) {
					folders[f.ParentNo] = nil
					return false, nil
				}
				return false, err
			}
			if v, err = s.acl.Visibility(ctx, p, acl.File, parent, acl.Children); err != nil {
				return false, fmt.Errorf("lookup displays: %w", err)
			}
			folders[f.ParentNo] = v
		}
		return v != nil && v.Sees(f.GUID), nil
	}
	cf, err := displayColumn(l, fieldRef)
	if err != nil {
		return out, nil //nolint:nilerr // a display column deleted since: empty displays
	}
	for _, chunk := range store.UniqueChunks(numbers, 500) {
		args := []any{l.ID}
		for _, n := range chunk {
			args = append(args, n)
		}
		rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT "+fileColumns+" FROM library_files WHERE library_id = ? AND number IN ("+
			store.Placeholders(len(chunk))+")", args...)
		if err != nil {
			return nil, fmt.Errorf("lookup displays: %w", err)
		}
		files, err := store.AppendRows(rows, []*File{}, scanFileRow)
		if err != nil {
			return nil, fmt.Errorf("lookup displays: %w", err)
		}
		if cf != nil && isRef(cf) {
			if err := s.shown(ctx, l, files...); err != nil {
				return nil, err
			}
		}
		for _, f := range files {
			ok, err := sees(f)
			if err != nil {
				return nil, err
			}
			if ok {
				out[f.Number] = display(f, fieldRef, cf)
			}
		}
	}
	return out, nil
}

// DisplaySQL is the target of a lookup to a library in SQL: the library's
// rows of library_files keyed by number, displayed by name, number, MIME type
// or type. A custom display field lives inside field_values: filters and
// sorts by display then compare the file number.
//
// Only files p can view take part, by the rule of acl.Visibility over the
// whole library (the same rule as the folder listing and Displays).
func (s *Service) DisplaySQL(ctx context.Context, p *auth.Principal, d store.Dialect, libraryID, fieldRef string) (field.LookupTarget, bool) {
	ctx = asViewer(ctx, p)
	id, ok := store.CanonicalUUID(strings.TrimSpace(libraryID))
	if !ok {
		return field.LookupTarget{}, false
	}
	where, err := s.visibleSQL(ctx, p, id)
	if err != nil {
		slog.WarnContext(ctx, "lookup library visibility", "library", id, "err", err)
		where = "1 = 0"
	}
	t := field.LookupTarget{Table: "library_files", Key: "number", Where: "lk.library_id = '" + id + "'" + where,
		Display: "lk.number", Text: "CAST(number AS TEXT)"}
	switch fieldRef {
	case "", "name":
		t.Display, t.Text, t.Textual = field.Fold("lk.name"), field.Fold("name"), true
	case "mime_type":
		t.Display, t.Text, t.Textual = field.Fold("lk.mime_type"), field.Fold("mime_type"), true
	case "item_type":
		t.Display, t.Text, t.Textual = "(CASE WHEN lk.is_folder THEN 'folder' ELSE 'file' END)", "(CASE WHEN is_folder THEN 'folder' ELSE 'file' END)", true
	}
	return t, true
}

// visibleSQL is the condition (" AND …", or "") on the files (alias lk) of
// library id that p can view, for DisplaySQL. Ids are written as literals
// (canonical UUIDs from the registry): the condition stands without
// arguments.
func (s *Service) visibleSQL(ctx context.Context, p *auth.Principal, id string) (string, error) {
	v, err := s.acl.Visibility(ctx, p, acl.File, libRef(id), acl.Subtree)
	if err != nil {
		return "", err
	}
	c, err := v.Condition(acl.Column{Name: "lk.guid", Registered: true, Literal: uuidLiteral})
	if err != nil || c.SQL == "1 = 1" {
		return "", err
	}
	return " AND " + c.SQL, nil
}

// uuidLiteral writes a canonical UUID as an SQL string literal.
func uuidLiteral(id string) (string, bool) {
	u, ok := store.CanonicalUUID(id)
	return "'" + u + "'", ok
}

// compacted remembers the libraries whose files were checked by compactValues.
var compacted sync.Map

// compactValues rewrites, once per library and process, the person and lookup
// values of files written before values were compact (JSON entries with their
// displays) into the reference text, outside transactions.
func (s *Service) compactValues(ctx context.Context, l *lib) {
	if store.InTransaction(ctx) {
		return
	}
	key := s.db.Dialect.String() + "/" + l.ID
	if _, done := compacted.Load(key); done {
		return
	}
	var refs []*field.Def
	for _, fd := range l.fields {
		if isRef(fd) {
			refs = append(refs, fd)
		}
	}
	if len(refs) > 0 {
		if err := s.compactFiles(ctx, l, refs); err != nil {
			slog.WarnContext(ctx, "compact library values", "library", l.ID, "err", err)
			return
		}
	}
	compacted.Store(key, true)
}

func (s *Service) compactFiles(ctx context.Context, l *lib, refs []*field.Def) error {
	// an entry of the old form always carries a "display" key
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT guid, field_values FROM library_files WHERE library_id = ? AND field_values LIKE ?",
		l.ID, `%"display"%`)
	if err != nil {
		return fmt.Errorf("compact values: %w", err)
	}
	type change struct{ guid, values string }
	var changes []change
	for rows.Next() {
		var guid, raw string
		if err := rows.Scan(&guid, &raw); err != nil {
			rows.Close()
			return fmt.Errorf("compact values: %w", err)
		}
		var vals map[string]json.RawMessage
		if json.Unmarshal([]byte(raw), &vals) != nil {
			continue
		}
		changed := false
		for _, fd := range refs {
			cur, ok := vals[fd.ID]
			if !ok || !strings.HasPrefix(strings.TrimSpace(string(cur)), "[") && !strings.HasPrefix(strings.TrimSpace(string(cur)), "{") {
				continue
			}
			v := valueOf(fd, cur)
			if v == nil {
				delete(vals, fd.ID)
			} else if vals[fd.ID], err = storedValue(fd, v); err != nil {
				rows.Close()
				return err
			}
			changed = true
		}
		if changed {
			changes = append(changes, change{guid, encodeValues(vals)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("compact values: %w", err)
	}
	for _, c := range changes {
		if _, err := s.db.W(ctx).ExecContext(ctx, "UPDATE library_files SET field_values = ? WHERE guid = ?", c.values, c.guid); err != nil {
			return fmt.Errorf("compact values: %w", err)
		}
	}
	return nil
}

// asViewer binds p to ctx as the caller lookup displays are resolved for
// (Displays reads it).
func asViewer(ctx context.Context, p *auth.Principal) context.Context {
	if p == nil || auth.FromContext(ctx) == p {
		return ctx
	}
	return auth.WithPrincipal(ctx, p)
}
