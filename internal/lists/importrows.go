package lists

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/field"
	"coreportal/internal/sheets"
	"coreportal/internal/store"
)

// importRow is one row ready for quick edit: an update of item (> 0) or a create.
type importRow struct {
	line   int
	item   int64
	key    string
	values Values
}

// keyText is the comparable form of a key cell or stored key value.
func keyText(f *field.Def, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case sheets.Cell:
		if f.Type == field.Number {
			if n, ok := sheets.ParseNumber(x); ok {
				return strconv.FormatFloat(n, 'f', -1, 64)
			}
		}
		return field.Lower(strings.TrimSpace(x.Text))
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case string:
		if f.Type == field.Number {
			if n, err := strconv.ParseFloat(x, 64); err == nil {
				return strconv.FormatFloat(n, 'f', -1, 64)
			}
		}
		return field.Lower(strings.TrimSpace(x))
	case []byte:
		return keyText(f, string(x))
	}
	return field.Lower(fmt.Sprint(v))
}

// loadKeys reads the key of every item the caller can view (items hidden
// from the caller are never matched: such rows create items).
func (ru *importRun) loadKeys(ctx context.Context) error {
	if ru.pl.KeyField == "" {
		return nil
	}
	f, ok := ru.sc.byID[ru.pl.KeyField]
	if !ok {
		return fmt.Errorf("the key field no longer exists")
	}
	vis, args, err := ru.s.visibility(ctx, ru.p, ru.sc)
	if err != nil {
		return err
	}
	rows, err := ru.s.db.Q(ctx).QueryContext(ctx, "SELECT id, "+safeIdent(f.Column())+" FROM "+safeIdent(ru.sc.list.Table)+" WHERE "+vis, args...)
	if err != nil {
		return fmt.Errorf("read import keys: %w", err)
	}
	defer rows.Close()
	ru.keys = map[string]int64{}
	for rows.Next() {
		var n int64
		var v any
		if err := rows.Scan(&n, &v); err != nil {
			return fmt.Errorf("read import keys: %w", err)
		}
		k := keyText(f, v)
		if k == "" {
			continue
		}
		if _, dup := ru.keys[k]; dup {
			ru.keys[k] = -1
			continue
		}
		ru.keys[k] = n
	}
	return rows.Err()
}

// prepare converts one row; flush tells that the batch must be saved first
// (the row's key is being created by a row of the batch). A nil row failed.
func (ru *importRun) prepare(ctx context.Context, line int, row []sheets.Cell, batch []importRow) (*importRow, bool) {
	ru.st.Read++
	ir := &importRow{line: line, values: Values{}}
	ok := true
	for col, f := range ru.fields {
		if col >= len(row) {
			if ru.pl.KeyField == "" {
				continue
			}
			row = append(row, make([]sheets.Cell, col-len(row)+1)...)
		}
		raw, msg, err := cellValue(ctx, f, row[col], ru.users)
		if err != nil {
			msg = errText(ctx, err)
		}
		if msg != "" {
			ru.fail(line, ru.header(col), msg)
			ok = false
			continue
		}
		ir.values[f.ID] = raw
	}
	if !ok {
		ru.st.Failed++
		return nil, false
	}
	if ru.pl.KeyField == "" {
		return ir, false
	}
	kf := ru.sc.byID[ru.pl.KeyField]
	var kc sheets.Cell
	if ru.pl.KeyCol < len(row) {
		kc = row[ru.pl.KeyCol]
	}
	ir.key = keyText(kf, kc)
	if ir.key != "" {
		switch n := ru.keys[ir.key]; {
		case n < 0:
			ru.fail(line, ru.header(ru.pl.KeyCol), fmt.Sprintf("several items have the key %q: none is updated", kc.Text))
			ru.st.Failed++
			return nil, false
		case n > 0:
			ir.item = n
		}
	}
	if kf.InternalName == sysItemNumber {
		if ir.item == 0 && ir.key != "" {
			ru.fail(line, ru.header(ru.pl.KeyCol), fmt.Sprintf("no item has the number %q", kc.Text))
			ru.st.Failed++
			return nil, false
		}
		delete(ir.values, kf.ID)
	}
	flush := false
	if ir.item == 0 && ir.key != "" {
		for _, b := range batch {
			if b.item == 0 && b.key == ir.key {
				flush = true // the earlier row creates it: save it, then update
			}
		}
	}
	return ir, flush
}

func (ru *importRun) header(col int) string {
	if col >= 0 && col < len(ru.headers) {
		return ru.headers[col]
	}
	return ""
}

// save runs quick edit on a batch (the same rights, validation, versions
// and events as any save) and records its outcome per row.
func (ru *importRun) save(ctx context.Context, batch []importRow) error {
	if len(batch) == 0 {
		return nil
	}
	var ups []QuickUpdate
	var crs []QuickCreate
	byItem := map[int64]importRow{}
	byLine := map[string]importRow{}
	for i, b := range batch {
		if b.item == 0 && b.key != "" && ru.keys[b.key] > 0 { // created earlier in this batch's flush
			batch[i].item, b.item = ru.keys[b.key], ru.keys[b.key]
		}
		if b.item > 0 {
			if _, dup := byItem[b.item]; dup {
				ru.fail(b.line, ru.header(ru.pl.KeyCol), "an earlier row of the same batch updates this item; row skipped")
				ru.st.Failed++
				continue
			}
			ups = append(ups, QuickUpdate{ID: b.item, FieldValues: b.values})
			byItem[b.item] = b
			continue
		}
		id := strconv.Itoa(b.line)
		crs = append(crs, QuickCreate{ClientRowID: id, FieldValues: b.values})
		byLine[id] = b
	}
	res, err := ru.s.quickBatch(ctx, ru.p, ru.sc.list.ID, ups, crs)
	if err != nil {
		return err
	}
	failed := map[int]bool{}
	for _, e := range res.Errors {
		var b importRow
		if e.ItemID != nil {
			b = byItem[*e.ItemID]
		} else if e.ClientRowID != nil {
			b = byLine[*e.ClientRowID]
		}
		col := ""
		if e.FieldID != nil {
			col = ru.columnOf(*e.FieldID)
		}
		ru.fail(b.line, col, e.Message)
		failed[b.line] = true
	}
	ru.st.Failed += len(failed)
	ru.st.Updated += len(res.Updated)
	ru.st.Created += len(res.Created)
	for _, c := range res.Created {
		if b, ok := byLine[c.ClientRowID]; ok && b.key != "" {
			if _, known := ru.keys[b.key]; !known {
				ru.keys[b.key] = c.ID
			}
		}
	}
	return nil
}

// columnOf is the header of the column mapped to a field.
func (ru *importRun) columnOf(fieldID string) string {
	for col, f := range ru.fields {
		if f.ID == fieldID {
			return ru.header(col)
		}
	}
	if f, ok := ru.sc.byID[fieldID]; ok {
		return f.Title
	}
	return fieldID
}

// quickCreateMany saves the create rows of a batch as quickRows does in
// strict mode, the valid ones in multi-row statements (createMany).
func (s *Service) quickCreateMany(ctx context.Context, p *auth.Principal, sc *schema, crs []QuickCreate, res *QuickResult) error {
	if len(crs) == 0 {
		return nil
	}
	lvl, err := s.acl.Level(ctx, p, listRef(sc.list.ID))
	if err != nil {
		return err
	}
	if lvl < acl.Add {
		for _, c := range crs {
			res.Errors = append(res.Errors, QuickError{ClientRowID: orNull(c.ClientRowID), Message: "add right on this list is required"})
		}
		return nil
	}
	ins := make([]Values, len(crs))
	for i, c := range crs {
		ins[i] = c.FieldValues
	}
	items, errs, err := s.createMany(ctx, p, sc, ins)
	if err != nil {
		return err
	}
	for i, c := range crs {
		for _, e := range errs[i] {
			res.Errors = append(res.Errors, QuickError{ClientRowID: orNull(c.ClientRowID), FieldID: orNull(e.FieldID), Message: e.Message})
		}
		if it := items[i]; it != nil {
			res.Created = append(res.Created, QuickRow{ClientRowID: c.ClientRowID, ID: it.Number, FieldValues: it.Values})
		}
	}
	return nil
}

// quickBatch saves a batch as quick edit does, in one transaction (one
// commit for the batch instead of one per row). Rows that fail validation
// or rights write nothing and are reported; any other failure rolls the
// batch back, and it is saved again by quick edit row by row.
func (s *Service) quickBatch(ctx context.Context, p *auth.Principal, listID string, ups []QuickUpdate, crs []QuickCreate) (QuickResult, error) {
	ctx = asViewer(ctx, p)
	sc, err := s.open(ctx, p, listID, acl.View)
	if err != nil {
		return QuickResult{}, err
	}
	var res QuickResult
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		var err error
		if res, err = s.quickRows(ctx, p, sc, ups, nil, true); err != nil {
			return err
		}
		return s.quickCreateMany(ctx, p, sc, crs, &res)
	})
	if err == nil {
		s.itemsChanged(ctx, listID)
		return res, nil
	}
	if ctx.Err() != nil {
		return QuickResult{}, err
	}
	slog.WarnContext(ctx, "import batch rolled back; saving its rows one by one", "list", listID, "err", err)
	return s.QuickEdit(ctx, p, listID, ups, crs)
}
