package doctext

import (
	"context"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// xlsxText reads the cell values of every sheet (tab between cells, a line
// per row) through excelize, after the ZIP checks of openZip.
func xlsxText(ctx context.Context, out *text, ra io.ReaderAt, size int64, lim Limits) error {
	zr, err := openZip(ra, size, lim)
	if err != nil {
		return err
	}
	// excelize inflates every entry into memory: inflate them once through
	// the bounded reader first, so that an entry lying about its size fails
	// as hostile here, before excelize sees it
	c := &inflated{max: lim.MaxUnzipped}
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		rc, err := c.open(f)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	f, err := excelize.OpenReader(io.NewSectionReader(ra, 0, size), excelize.Options{
		UnzipSizeLimit: lim.MaxUnzipped, UnzipXMLSizeLimit: min(lim.MaxUnzipped, 16<<20)})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	defer f.Close()
	for _, sheet := range f.GetSheetList() {
		if err := out.write(sheet); err != nil {
			return err
		}
		if err := out.brk(); err != nil {
			return err
		}
		rows, err := f.Rows(sheet)
		if err != nil {
			return fmt.Errorf("%w: sheet %s: %v", ErrMalformed, sheet, err)
		}
		if err := sheetText(ctx, out, rows); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("sheet %s: %w", sheet, err)
		}
	}
	return nil
}

func sheetText(ctx context.Context, out *text, rows *excelize.Rows) error {
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		cells, err := rows.Columns()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		for _, c := range cells {
			if c == "" {
				continue
			}
			if err := out.write(c + "\t"); err != nil {
				return err
			}
		}
		if err := out.brk(); err != nil {
			return err
		}
	}
	return rows.Error()
}
