// Package sheets reads and writes spreadsheets for imports and exports of
// lists and libraries: CSV (UTF-8, UTF-16 with BOM, Windows-1251; comma,
// semicolon or tab detected) and XLSX (excelize, streamed both ways). It
// knows nothing of lists: cells in, cells out, with limits that keep memory
// bounded whatever the file holds (zip bombs, huge cells, endless rows).
package sheets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// Kind is the type of a cell read from a file.
type Kind int

// Cell kinds: CSV cells are always Text; XLSX cells carry the type the
// workbook stored.
const (
	Text Kind = iota
	Number
	Date     // a date cell without a time of day
	DateTime // a date cell with a time of day
	Bool
)

// Cell is one value read from a file.
type Cell struct {
	Kind Kind
	Text string    // as a person reads it (XLSX: the formatted value)
	Num  float64   // Number
	Time time.Time // Date, DateTime (UTC)
	Bool bool      // Bool
}

// Limits bound what a reader accepts.
type Limits struct {
	MaxRows        int   // data rows after the header
	MaxColumns     int   // columns of a row
	MaxCellChars   int   // characters of a cell (Excel's own limit is 32,767)
	MaxRecordBytes int   // bytes of one CSV record
	UnzipSize      int64 // bytes an XLSX may unpack to in total
	UnzipXMLSize   int64 // bytes of one XML part kept in memory (larger parts spill to temporary files)
}

// DefaultLimits are the limits of imports.
func DefaultLimits() Limits {
	return Limits{MaxRows: 1_000_000, MaxColumns: 500, MaxCellChars: 32_767, MaxRecordBytes: 4 << 20,
		UnzipSize: 1 << 30, UnzipXMLSize: 16 << 20}
}

// Info describes a file as it was read.
type Info struct {
	Format    string `json:"format" enum:"csv,xlsx"`
	Encoding  string `json:"encoding,omitempty" doc:"CSV: utf-8, utf-16le, utf-16be or windows-1251"`
	Separator string `json:"separator,omitempty" doc:"CSV: the detected separator (\",\", \";\" or \"\\t\")"`
	Sheet     string `json:"sheet,omitempty" doc:"XLSX: the sheet read (the first one)"`
}

// Reader reads a file row by row; the first row is the header.
type Reader interface {
	// Header is the first row (column titles), trimmed.
	Header() []string
	// Next returns the next data row; io.EOF at the end. A row may have
	// fewer or more cells than the header.
	Next() ([]Cell, error)
	// Line is the row number in the file of the row Next returned last (the header is row 1).
	Line() int
	Info() Info
	Close() error
}

// ErrLimit is wrapped by every error of a limit that the file exceeds.
var ErrLimit = errors.New("the file exceeds a limit")

func limitErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLimit, fmt.Sprintf(format, args...))
}

// ErrFormat is wrapped by errors of files that are neither CSV nor XLSX or are damaged.
var ErrFormat = errors.New("the file is not a readable CSV or XLSX file")

// Open detects the format of the file (XLSX by its zip signature, CSV
// otherwise) and returns its reader, positioned after the header row. A
// CSV file is read as a stream; an XLSX file is read into memory first (its
// zip directory sits at its end), at most maxBytes.
func Open(r io.Reader, maxBytes int64, lim Limits) (Reader, error) {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, _ := br.Peek(4)
	if string(head) == "PK\x03\x04" {
		b, err := io.ReadAll(io.LimitReader(br, maxBytes+1))
		if err != nil {
			return nil, fmt.Errorf("read workbook: %w", err)
		}
		if int64(len(b)) > maxBytes {
			return nil, limitErr("the workbook is larger than %d bytes", maxBytes)
		}
		return openXLSX(bytes.NewReader(b), int64(len(b)), lim)
	}
	return openCSV(br, lim)
}

// trimCells trims a header.
func trimHeader(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = trimSpace(c)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
