package dav

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/net/webdav"

	"coreportal/internal/acl"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Props stores WebDAV dead properties (PROPPATCH) by resource id.
type Props struct{ db *store.DB }

// NewProps returns the dead-property store over db.
func NewProps(db *store.DB) *Props { return &Props{db: db} }

// maxPropBytes bounds one property's XML; maxProps the properties of one resource.
const (
	maxPropBytes = 64 << 10
	maxProps     = 200
)

// of reads the dead properties of resources (chunks of 500 ids).
func (s *Props) of(ctx context.Context, ids []string) (map[string]map[xml.Name]webdav.Property, error) {
	out := map[string]map[xml.Name]webdav.Property{}
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		args := make([]any, 0, end-start)
		for _, id := range ids[start:end] {
			args = append(args, id)
		}
		rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT resource_id, ns, local, lang, inner_xml FROM dav_props WHERE resource_id IN (?`+
			strings.Repeat(", ?", len(args)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read dead properties: %w", err)
		}
		for rows.Next() {
			var id, ns, local, lang, inner string
			if err := rows.Scan(&id, &ns, &local, &lang, &inner); err != nil {
				rows.Close()
				return nil, err
			}
			if out[id] == nil {
				out[id] = map[xml.Name]webdav.Property{}
			}
			n := xml.Name{Space: ns, Local: local}
			out[id][n] = webdav.Property{XMLName: n, Lang: lang, InnerXML: []byte(inner)}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// patch applies one PROPPATCH atomically.
func (s *Props) patch(ctx context.Context, id string, patches []webdav.Proppatch) error {
	return s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		for _, p := range patches {
			for _, pr := range p.Props {
				if _, err := s.db.W(ctx).ExecContext(ctx, `DELETE FROM dav_props WHERE resource_id = ? AND ns = ? AND local = ?`,
					id, pr.XMLName.Space, pr.XMLName.Local); err != nil {
					return err
				}
				if p.Remove {
					continue
				}
				if _, err := s.db.W(ctx).ExecContext(ctx, `INSERT INTO dav_props (resource_id, ns, local, lang, inner_xml) VALUES (?, ?, ?, ?, ?)`,
					id, pr.XMLName.Space, pr.XMLName.Local, pr.Lang, string(pr.InnerXML)); err != nil {
					return err
				}
			}
		}
		var n int
		if err := s.db.W(ctx).QueryRowContext(ctx, `SELECT count(*) FROM dav_props WHERE resource_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if n > maxProps {
			return fault.Validation("", "at most %d dead properties per resource", maxProps)
		}
		return nil
	})
}

// readProps reads ahead the dead properties of a listing (one query per
// 500 entries instead of one per entry).
func (f *FS) readProps(ctx context.Context, rs []*res) error {
	if f.svc.Props == nil {
		return nil
	}
	ids := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.kind == kindFile || r.kind == kindLibrary {
			ids = append(ids, r.id())
		}
	}
	m, err := f.svc.Props.of(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if m[id] == nil {
			m[id] = map[xml.Name]webdav.Property{}
		}
		f.props[id] = m[id]
	}
	return nil
}

func (f *FS) deadProps(ctx context.Context, r *res) (map[xml.Name]webdav.Property, error) {
	if f.svc.Props == nil || (r.kind != kindFile && r.kind != kindLibrary) {
		return nil, nil
	}
	if m, ok := f.props[r.id()]; ok {
		return m, nil
	}
	m, err := f.svc.Props.of(ctx, []string{r.id()})
	if err != nil {
		return nil, err
	}
	f.props[r.id()] = m[r.id()]
	return m[r.id()], nil
}

// patchProps stores a PROPPATCH: edit on the file or folder (on the library
// at its root); node directories and the root hold none (403 each).
func (f *FS) patchProps(ctx context.Context, r *res, patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	status := http.StatusOK
	switch {
	case f.svc.Props == nil || (r.kind != kindFile && r.kind != kindLibrary):
		status = http.StatusForbidden
	default:
		guid := ""
		if r.kind == kindFile {
			guid = r.entry.GUID
		}
		lvl, err := f.svc.Libraries.Level(ctx, f.p, r.lib.ID, guid)
		if err != nil {
			return nil, err
		}
		if lvl < acl.Edit {
			status = http.StatusForbidden
		}
		for _, p := range patches {
			for _, pr := range p.Props {
				if len(pr.InnerXML) > maxPropBytes {
					status = http.StatusInsufficientStorage
				}
			}
		}
	}
	if status == http.StatusOK {
		if err := f.svc.Props.patch(ctx, r.id(), patches); err != nil {
			if !fault.Is(err, fault.CodeValidation) {
				return nil, err
			}
			status = http.StatusInsufficientStorage
		}
		delete(f.props, r.id())
	}
	ps := webdav.Propstat{Status: status}
	for _, p := range patches {
		for _, pr := range p.Props {
			ps.Props = append(ps.Props, webdav.Property{XMLName: pr.XMLName})
		}
	}
	return []webdav.Propstat{ps}, nil
}
