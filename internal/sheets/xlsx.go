package sheets

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// xlsxReader walks the first sheet with two excelize row iterators in
// step: one gives the raw stored values (numbers, date serials), the other
// the values as formatted for a reader, which tells dates from numbers
// (the number format is what makes a serial a date).
type xlsxReader struct {
	f          *excelize.File
	raw, shown *excelize.Rows
	header     []string
	line       int
	rows       int
	info       Info
	lim        Limits
	date1904   bool
}

var isoDates = excelize.Options{ShortDatePattern: "yyyy-mm-dd", LongDatePattern: "yyyy-mm-dd", LongTimePattern: "hh:mm:ss"}

func openXLSX(r io.ReaderAt, size int64, lim Limits) (Reader, error) {
	opts := excelize.Options{UnzipSizeLimit: lim.UnzipSize, UnzipXMLSizeLimit: lim.UnzipXMLSize,
		ShortDatePattern: isoDates.ShortDatePattern, LongDatePattern: isoDates.LongDatePattern, LongTimePattern: isoDates.LongTimePattern}
	f, err := excelize.OpenReader(io.NewSectionReader(r, 0, size), opts)
	if err != nil {
		if strings.Contains(err.Error(), "unzip size") {
			return nil, limitErr("the workbook unpacks to more than %d bytes", lim.UnzipSize)
		}
		return nil, errors.Join(ErrFormat, err)
	}
	x := &xlsxReader{f: f, lim: lim}
	if err := x.start(); err != nil {
		_ = f.Close()
		return nil, err
	}
	return x, nil
}

func (x *xlsxReader) start() error {
	sheets := x.f.GetSheetList()
	if len(sheets) == 0 {
		return errors.Join(ErrFormat, errors.New("the workbook has no sheet"))
	}
	x.info = Info{Format: "xlsx", Sheet: sheets[0]}
	if p, err := x.f.GetWorkbookProps(); err == nil && p.Date1904 != nil && *p.Date1904 {
		x.date1904 = true
	}
	var err error
	if x.raw, err = x.f.Rows(sheets[0]); err != nil {
		return errors.Join(ErrFormat, err)
	}
	if x.shown, err = x.f.Rows(sheets[0]); err != nil {
		return errors.Join(ErrFormat, err)
	}
	for {
		raw, shown, err := x.row()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errors.Join(ErrFormat, errors.New("the sheet has no header row"))
			}
			return err
		}
		if len(raw) == 0 && len(shown) == 0 {
			continue
		}
		x.header = trimHeader(shown)
		return nil
	}
}

// row advances both iterators by one row (empty rows included).
func (x *xlsxReader) row() (raw, shown []string, err error) {
	if !x.raw.Next() || !x.shown.Next() {
		if err := x.raw.Error(); err != nil {
			return nil, nil, x.wrap(err)
		}
		return nil, nil, io.EOF
	}
	x.line++
	if raw, err = x.raw.Columns(excelize.Options{RawCellValue: true}); err != nil {
		return nil, nil, x.wrap(err)
	}
	if shown, err = x.shown.Columns(); err != nil {
		return nil, nil, x.wrap(err)
	}
	if len(raw) > x.lim.MaxColumns {
		return nil, nil, limitErr("row %d has %d columns, more than %d", x.line, len(raw), x.lim.MaxColumns)
	}
	for _, s := range raw {
		if utf8.RuneCountInString(s) > x.lim.MaxCellChars {
			return nil, nil, limitErr("a cell of row %d has more than %d characters", x.line, x.lim.MaxCellChars)
		}
	}
	return raw, shown, nil
}

func (x *xlsxReader) wrap(err error) error {
	if errors.Is(err, excelize.ErrMaxRows) {
		return limitErr("the sheet has more rows than a workbook may")
	}
	return errors.Join(ErrFormat, err)
}

func (x *xlsxReader) Next() ([]Cell, error) {
	for {
		raw, shown, err := x.row()
		if err != nil {
			return nil, err
		}
		if blank(raw) {
			continue
		}
		x.rows++
		if x.rows > x.lim.MaxRows {
			return nil, limitErr("more than %d rows", x.lim.MaxRows)
		}
		out := make([]Cell, len(raw))
		for i, r := range raw {
			s := r
			if i < len(shown) {
				s = shown[i]
			}
			out[i] = x.cell(r, s)
		}
		return out, nil
	}
}

// cell types one cell: a numeric raw value shown as a date or time is a
// date; other numeric values are numbers; TRUE/FALSE shown for 1/0 are booleans.
func (x *xlsxReader) cell(raw, shown string) Cell {
	c := Cell{Kind: Text, Text: shown}
	n, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || strings.TrimSpace(raw) == "" {
		return c
	}
	if (raw == "1" || raw == "0") && (shown == "TRUE" || shown == "FALSE") {
		return Cell{Kind: Bool, Text: shown, Bool: shown == "TRUE"}
	}
	if looksLikeDate(shown) {
		t, err := excelize.ExcelDateToTime(n, x.date1904)
		if err == nil {
			t = t.UTC().Round(time.Second)
			if n == math.Trunc(n) {
				return Cell{Kind: Date, Text: t.Format(time.DateOnly), Time: t}
			}
			return Cell{Kind: DateTime, Text: t.Format("2006-01-02 15:04:05"), Time: t}
		}
	}
	return Cell{Kind: Number, Text: shown, Num: n}
}

// looksLikeDate tells a date or time rendering from a number rendering
// (1,234.5; 12%; $5; 1.2E+03): it has a separator of dates or times
// between digits, or a month name.
func looksLikeDate(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	if _, err := strconv.ParseFloat(strings.NewReplacer(",", "", " ", "", "%", "", "$", "", "€", "", "₽", "").Replace(s), 64); err == nil {
		return false
	}
	digits, seps := 0, 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case (r == '-' || r == '/' || r == ':' || r == '.') && i > 0:
			seps++
		}
	}
	if digits > 0 && seps > 0 {
		return true
	}
	return digits > 0 && strings.ContainsFunc(s, func(r rune) bool { return r > 'A' && r != 'E' && r != 'e' })
}

func (x *xlsxReader) Header() []string { return x.header }
func (x *xlsxReader) Line() int        { return x.line }
func (x *xlsxReader) Info() Info       { return x.info }

func (x *xlsxReader) Close() error {
	_ = x.raw.Close()
	_ = x.shown.Close()
	return x.f.Close()
}
