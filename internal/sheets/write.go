package sheets

import (
	"archive/zip"
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"

	"coreportal/internal/export"
)

// Writer writes one sheet row by row. Every text cell is neutralised
// against formula injection (export.Neutralise): text starting with = + -
// @, tab or CR gets a leading apostrophe.
type Writer interface {
	Row(cells []Cell) error
	// Close writes what is buffered (XLSX: the whole package) to the output.
	Close() error
}

// ContentType is the media type of a format.
func ContentType(format string) string {
	if format == "xlsx" {
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	return "text/csv; charset=utf-8"
}

// NewWriter starts a file of format csv or xlsx on w with its header row.
func NewWriter(format string, w io.Writer, sheet string, header []string) (Writer, error) {
	if format == "xlsx" {
		return newXLSXWriter(w, sheet, header)
	}
	return newCSVWriter(w, header)
}

type csvWriter struct {
	bw  *bufio.Writer
	cw  *csv.Writer
	rec []string
}

// newCSVWriter writes UTF-8 with a BOM (so that Excel reads the encoding)
// and commas.
func newCSVWriter(w io.Writer, header []string) (*csvWriter, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString("\uFEFF"); err != nil {
		return nil, err
	}
	c := &csvWriter{bw: bw, cw: csv.NewWriter(bw)}
	hs := make([]Cell, len(header))
	for i, h := range header {
		hs[i] = Cell{Text: h}
	}
	return c, c.Row(hs)
}

func (c *csvWriter) Row(cells []Cell) error {
	c.rec = c.rec[:0]
	for _, x := range cells {
		c.rec = append(c.rec, csvText(x))
	}
	return c.cw.Write(c.rec)
}

func csvText(x Cell) string {
	switch x.Kind {
	case Number:
		return strconv.FormatFloat(x.Num, 'f', -1, 64)
	case Date:
		return x.Time.Format(time.DateOnly)
	case DateTime:
		return x.Time.UTC().Format("2006-01-02 15:04:05")
	case Bool:
		if x.Bool {
			return "Yes"
		}
		return "No"
	}
	return export.Neutralise(x.Text)
}

func (c *csvWriter) Close() error {
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return c.bw.Flush()
}

type xlsxWriter struct {
	f         *excelize.File
	sw        *excelize.StreamWriter
	w         io.Writer
	n         int
	dateStyle int
	timeStyle int
	row       []any
}

func newXLSXWriter(w io.Writer, sheet string, header []string) (*xlsxWriter, error) {
	f := excelize.NewFile()
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		f.Close()
		return nil, err
	}
	dateFmt, timeFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss"
	x := &xlsxWriter{f: f, w: w}
	var err error
	if x.dateStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dateFmt}); err != nil {
		f.Close()
		return nil, err
	}
	if x.timeStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &timeFmt}); err != nil {
		f.Close()
		return nil, err
	}
	if x.sw, err = f.NewStreamWriter(sheet); err != nil {
		f.Close()
		return nil, err
	}
	hs := make([]Cell, len(header))
	for i, h := range header {
		hs[i] = Cell{Text: h}
	}
	return x, x.Row(hs)
}

func (x *xlsxWriter) Row(cells []Cell) error {
	x.row = x.row[:0]
	for _, c := range cells {
		switch c.Kind {
		case Number:
			x.row = append(x.row, c.Num)
		case Date:
			x.row = append(x.row, excelize.Cell{StyleID: x.dateStyle, Value: c.Time})
		case DateTime:
			x.row = append(x.row, excelize.Cell{StyleID: x.timeStyle, Value: c.Time.UTC()})
		case Bool:
			x.row = append(x.row, c.Bool)
		default:
			if c.Text == "" {
				x.row = append(x.row, nil)
			} else {
				x.row = append(x.row, export.Neutralise(c.Text))
			}
		}
	}
	x.n++
	cell, _ := excelize.CoordinatesToCellName(1, x.n)
	return x.sw.SetRow(cell, x.row)
}

func (x *xlsxWriter) Close() error {
	defer x.f.Close()
	if err := x.sw.Flush(); err != nil {
		return fmt.Errorf("flush xlsx: %w", err)
	}
	// the package is zipped straight into w: excelize's WriteTo would
	// first build the whole file in memory
	direct := zip.NewWriter(x.w)
	x.f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return direct })
	if _, err := x.f.WriteTo(io.Discard); err != nil {
		return fmt.Errorf("write xlsx: %w", err)
	}
	return nil
}
