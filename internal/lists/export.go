package lists

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/sheets"
	"coreportal/internal/sheets/fieldcell"
)

// exportChunk is how many items are read (and their displays resolved) at a time.
const exportChunk = 500

// MaxXLSXRows is the most data rows a sheet holds (1,048,576 with the header).
const MaxXLSXRows = 1_048_575

// ItemExport is a prepared export: everything is checked, nothing written yet.
type ItemExport struct {
	FileName    string
	ContentType string
	Rows        int
	write       func(ctx context.Context, w io.Writer) error
}

// WriteTo streams the file to w.
func (e *ItemExport) WriteTo(ctx context.Context, w io.Writer) error { return e.write(ctx, w) }

// ExportItems prepares the export of a listing (view on the list) as CSV or
// XLSX: the rows of ListItems with the same parameters (rights, view filter,
// filter, q and sort), in the view's column order. The item numbers are read
// first (8 bytes per item), then the items chunk by chunk, so memory stays
// bounded by the chunk, not by the list.
func (s *Service) ExportItems(ctx context.Context, p *auth.Principal, listID, format string, in ListParams) (*ItemExport, error) {
	if format != "csv" && format != "xlsx" {
		return nil, fault.Validation("format", "format must be csv or xlsx")
	}
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return nil, err
	}
	l, err := s.listingOf(ctx, p, sc, in)
	if err != nil {
		return nil, err
	}
	numbers, err := s.allNumbers(ctx, l)
	if err != nil {
		return nil, err
	}
	if format == "xlsx" && len(numbers) > MaxXLSXRows {
		return nil, fault.Validation("format", "%d items do not fit in one sheet (at most %d rows): export as csv or filter", len(numbers), MaxXLSXRows)
	}
	cols := exportColumns(sc, l.view)
	header := make([]string, len(cols))
	for i, f := range cols {
		header[i] = f.Title
	}
	e := &ItemExport{FileName: sc.list.Slug + "." + format, ContentType: sheets.ContentType(format), Rows: len(numbers)}
	e.write = func(ctx context.Context, w io.Writer) error {
		ctx = asViewer(ctx, p)
		sw, err := sheets.NewWriter(format, w, sheetName(sc.list.Title), header)
		if err != nil {
			return fmt.Errorf("start export: %w", err)
		}
		row := make([]sheets.Cell, len(cols))
		for start := 0; start < len(numbers); start += exportChunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			items, err := s.st.itemsByNumber(ctx, sc.list, sc.fields, numbers[start:min(start+exportChunk, len(numbers))])
			if err != nil {
				return err
			}
			for _, it := range items {
				for i, f := range cols {
					row[i] = exportCell(f, it)
				}
				if err := sw.Row(row); err != nil {
					return fmt.Errorf("write export row: %w", err)
				}
			}
		}
		return sw.Close()
	}
	return e, nil
}

// allNumbers reads the item numbers of a listing in its order.
func (s *Service) allNumbers(ctx context.Context, l *listing) ([]int64, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, "SELECT id FROM "+safeIdent(l.sc.list.Table)+" WHERE "+strings.Join(l.where, " AND ")+
		" ORDER BY "+l.order, s.planned(l.args)...)
	if err != nil {
		return nil, fmt.Errorf("export items: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("export items: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// exportColumns are the view's columns, or every field in order when the
// view names none.
func exportColumns(sc *schema, v *ListView) []*field.Def {
	var out []*field.Def
	for _, c := range v.Config.Columns {
		if f, ok := sc.resolve(c); ok {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = append(out, sc.fields...)
	}
	return out
}

// sheetName is a valid sheet name made of a title.
func sheetName(title string) string {
	t := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\'`, r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(title))
	if r := []rune(t); len(r) > 31 {
		t = string(r[:31])
	}
	if strings.TrimSpace(t) == "" {
		return "Items"
	}
	return t
}

// exportCell is a value as a person reads it (fieldcell.Of); the item
// number and the Created and Modified columns come from the item itself.
func exportCell(f *field.Def, it *Item) sheets.Cell {
	switch f.ID {
	case "id":
		return sheets.Cell{Kind: sheets.Number, Num: float64(it.Number)}
	case "__created_at":
		return sheets.Cell{Kind: sheets.DateTime, Time: it.CreatedAt.Truncate(time.Second)}
	case "__updated_at":
		return sheets.Cell{Kind: sheets.DateTime, Time: it.UpdatedAt.Truncate(time.Second)}
	}
	return fieldcell.Of(f.Type, it.Values[f.ID])
}
