// Package doctext extracts the plain text of uploaded documents (txt, md,
// csv, html, docx, xlsx, pptx, odt, pdf) for the search index, with hard
// bounds on the bytes read, the text kept, the bytes inflated from ZIP-based
// formats and the time spent: a malformed or hostile document ends in an
// error, never in a hang or an exhausted process.
package doctext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"
	"time"
)

// Format names.
const (
	Plain = "plain" // txt, md, csv and other text
	HTML  = "html"
	DOCX  = "docx"
	XLSX  = "xlsx"
	PPTX  = "pptx"
	ODT   = "odt"
	PDF   = "pdf"
)

// Limits bound one extraction.
type Limits struct {
	MaxInput    int64         // bytes of the file read at most; larger files fail with ErrTooLarge
	MaxText     int           // bytes of text kept; the rest is dropped (no error)
	MaxUnzipped int64         // total bytes inflated from a ZIP-based document
	MaxEntries  int           // entries a ZIP-based document may hold
	MaxPages    int           // PDF pages read; later pages are ignored
	MaxDepth    int           // XML nesting depth
	Timeout     time.Duration // time for one file
}

// DefaultLimits are the limits of the search.extractText job. The text kept
// is 256 KiB: PostgreSQL refuses a tsvector over 1 MiB and the index builds
// two (russian and english) from the body.
func DefaultLimits() Limits {
	return Limits{MaxInput: 64 << 20, MaxText: 256 << 10, MaxUnzipped: 256 << 20, MaxEntries: 10000,
		MaxPages: 2000, MaxDepth: 256, Timeout: 30 * time.Second}
}

var (
	// ErrUnsupported: the format carries no text this package reads.
	ErrUnsupported = errors.New("doctext: unsupported format")
	// ErrTooLarge: the file is over Limits.MaxInput.
	ErrTooLarge = errors.New("doctext: file too large to extract")
	// ErrHostile: the document breaks a limit (zip bomb, too many entries, too deep).
	ErrHostile = errors.New("doctext: document exceeds extraction limits")
	// ErrMalformed: the document cannot be parsed.
	ErrMalformed = errors.New("doctext: malformed document")
)

var byExt = map[string]string{
	".txt": Plain, ".text": Plain, ".md": Plain, ".markdown": Plain, ".csv": Plain, ".tsv": Plain, ".log": Plain,
	".html": HTML, ".htm": HTML, ".xhtml": HTML,
	".docx": DOCX, ".docm": DOCX, ".xlsx": XLSX, ".xlsm": XLSX, ".pptx": PPTX, ".pptm": PPTX, ".odt": ODT, ".pdf": PDF,
}

var byMime = map[string]string{
	"text/plain": Plain, "text/markdown": Plain, "text/x-markdown": Plain, "text/csv": Plain, "text/tab-separated-values": Plain,
	"text/html": HTML, "application/xhtml+xml": HTML, "application/pdf": PDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   DOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         XLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": PPTX,
	"application/vnd.oasis.opendocument.text":                                   ODT,
}

// Format names the format of a file by its extension, else by its MIME
// type; "" when the file is none of the supported formats.
func Format(name, mimeType string) string {
	if f, ok := byExt[strings.ToLower(path.Ext(name))]; ok {
		return f
	}
	mt, _, _ := mime.ParseMediaType(mimeType)
	return byMime[strings.ToLower(mt)]
}

// Extract returns the text of the document r (size bytes) named name with
// type mimeType, within lim. Errors wrap ErrUnsupported, ErrTooLarge,
// ErrHostile, ErrMalformed or the context's error (time limit).
func Extract(ctx context.Context, r io.ReaderAt, size int64, name, mimeType string, lim Limits) (_ string, err error) {
	defer func() {
		if p := recover(); p != nil { // a parser bug on odd input fails this file only
			err = fmt.Errorf("%w: parser panicked: %v", ErrMalformed, p)
		}
	}()
	f := Format(name, mimeType)
	if f == "" {
		return "", fmt.Errorf("%w: %s", ErrUnsupported, name)
	}
	if size > lim.MaxInput && f != Plain {
		return "", fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, size, lim.MaxInput)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	out := newText(lim.MaxText)
	ra := &guard{ctx: ctx, r: r, budget: 64*size + 512<<20}
	switch f {
	case Plain:
		err = plainText(out, io.NewSectionReader(ra, 0, min(size, lim.MaxInput)))
	case HTML:
		err = htmlText(out, io.NewSectionReader(ra, 0, size))
	case XLSX:
		err = xlsxText(ctx, out, ra, size, lim)
	case PDF:
		err = pdfText(ctx, out, ra, size, lim)
	default:
		err = zipText(ctx, out, ra, size, f, lim)
	}
	if errors.Is(err, errFull) {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ErrHostile) && !errors.Is(err, ErrTooLarge) {
			return "", fmt.Errorf("%s: time limit of %s reached: %w", f, lim.Timeout, ctx.Err())
		}
		return "", fmt.Errorf("%s: %w", f, err)
	}
	return out.String(), nil
}

// errFull stops an extraction once the text limit is reached.
var errFull = errors.New("doctext: text limit reached")

// text is a bounded text buffer that folds whitespace runs.
type text struct {
	b     strings.Builder
	max   int
	space bool // last byte written was whitespace (or nothing yet)
}

func newText(max int) *text { return &text{max: max, space: true} }

// write appends s; errFull once the limit is reached.
func (t *text) write(s string) error {
	for _, r := range s {
		if r == '\uFFFD' || r < 0x20 && r != '\n' && r != '\t' {
			r = ' '
		}
		isSpace := r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\u00a0'
		if isSpace {
			if t.space {
				continue
			}
			if r != '\n' {
				r = ' '
			}
		}
		if t.b.Len()+4 > t.max {
			return errFull
		}
		t.b.WriteRune(r)
		t.space = isSpace
	}
	return nil
}

// brk ends a paragraph.
func (t *text) brk() error {
	if t.space {
		return nil
	}
	return t.write("\n")
}

func (t *text) String() string { return strings.TrimSpace(t.b.String()) }

// guard is an io.ReaderAt that fails once ctx ends or once more than budget
// bytes were read in total (a parser re-reading the same bytes in a loop).
type guard struct {
	ctx    context.Context
	r      io.ReaderAt
	budget int64
	read   int64
}

func (g *guard) ReadAt(p []byte, off int64) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	g.read += int64(len(p))
	if g.read > g.budget {
		return 0, fmt.Errorf("%w: parser read more than %d bytes", ErrHostile, g.budget)
	}
	return g.r.ReadAt(p, off)
}
