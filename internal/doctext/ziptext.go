package doctext

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// openZip opens a ZIP-based document and checks its entry count and the
// declared sizes against lim.
func openZip(ra io.ReaderAt, size int64, lim Limits) (*zip.Reader, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		if errors.Is(err, ErrHostile) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, fmt.Errorf("%w: %d ZIP entries, limit %d", ErrHostile, len(zr.File), lim.MaxEntries)
	}
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if f.UncompressedSize64 > uint64(lim.MaxUnzipped) || total > uint64(lim.MaxUnzipped) {
			return nil, fmt.Errorf("%w: ZIP entries declare more than %d bytes", ErrHostile, lim.MaxUnzipped)
		}
	}
	return zr, nil
}

// inflated counts the bytes inflated across the entries of one document.
type inflated struct {
	n, max int64
}

// open opens an entry whose reads stop with ErrHostile past its declared
// size or past the document's total (archive/zip checks the declared size
// too; this does not rely on it).
func (c *inflated) open(f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: entry %s: %v", ErrMalformed, f.Name, err)
	}
	return &boundedEntry{rc: rc, name: f.Name, left: int64(f.UncompressedSize64), c: c}, nil
}

type boundedEntry struct {
	rc   io.ReadCloser
	name string
	left int64
	c    *inflated
}

func (b *boundedEntry) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	b.c.n += int64(n)
	if b.left < 0 {
		return 0, fmt.Errorf("%w: entry %s inflates beyond its declared size", ErrHostile, b.name)
	}
	if b.c.n > b.c.max {
		return 0, fmt.Errorf("%w: more than %d bytes inflated", ErrHostile, b.c.max)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) {
			return n, fmt.Errorf("%w: entry %s: %v", ErrHostile, b.name, err)
		}
		return n, fmt.Errorf("%w: entry %s: %v", ErrMalformed, b.name, err)
	}
	return n, err
}

func (b *boundedEntry) Close() error { return b.rc.Close() }

// xmlRules say which elements of an office format hold text.
type xmlRules struct {
	text  func(space, local string) bool // character data inside it is text
	brk   map[string]bool                // local names that end a line
	space map[string]bool                // local names that stand for a space or tab
}

var (
	wordRules = xmlRules{
		text:  func(_, l string) bool { return l == "t" },
		brk:   map[string]bool{"p": true, "br": true, "cr": true, "tr": true},
		space: map[string]bool{"tab": true},
	}
	odfRules = xmlRules{
		text:  func(space, _ string) bool { return strings.Contains(space, "opendocument:xmlns:text") },
		brk:   map[string]bool{"p": true, "h": true, "line-break": true},
		space: map[string]bool{"s": true, "tab": true},
	}
)

// zipText reads docx, pptx and odt: the XML parts holding the text, in
// reading order.
func zipText(ctx context.Context, out *text, ra io.ReaderAt, size int64, format string, lim Limits) error {
	zr, err := openZip(ra, size, lim)
	if err != nil {
		return err
	}
	parts, rules := textParts(zr, format)
	if len(parts) == 0 {
		return fmt.Errorf("%w: no %s text part", ErrMalformed, format)
	}
	c := &inflated{max: lim.MaxUnzipped}
	for _, f := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := xmlPart(ctx, out, c, f, rules, lim.MaxDepth); err != nil {
			return err
		}
		if err := out.brk(); err != nil {
			return err
		}
	}
	return nil
}

// textParts lists the entries of a format that hold its text.
func textParts(zr *zip.Reader, format string) ([]*zip.File, xmlRules) {
	byName := map[string]*zip.File{}
	for _, f := range zr.File {
		byName[f.Name] = f
	}
	var out []*zip.File
	switch format {
	case DOCX:
		for _, n := range []string{"word/document.xml", "word/footnotes.xml", "word/endnotes.xml"} {
			if f, ok := byName[n]; ok {
				out = append(out, f)
			}
		}
		return out, wordRules
	case PPTX:
		type slide struct {
			n int
			f *zip.File
		}
		var slides []slide
		for name, f := range byName {
			rest, ok := strings.CutPrefix(name, "ppt/slides/slide")
			if !ok || !strings.HasSuffix(rest, ".xml") {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSuffix(rest, ".xml")); err == nil {
				slides = append(slides, slide{n, f})
			}
		}
		sort.Slice(slides, func(i, j int) bool { return slides[i].n < slides[j].n })
		for _, s := range slides {
			out = append(out, s.f)
		}
		return out, wordRules
	case ODT:
		if f, ok := byName["content.xml"]; ok {
			out = append(out, f)
		}
		return out, odfRules
	}
	return nil, xmlRules{}
}

// xmlPart streams one XML entry into out.
func xmlPart(ctx context.Context, out *text, c *inflated, f *zip.File, rules xmlRules, maxDepth int) error {
	rc, err := c.open(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(rc)
	d.Strict = false
	var stack []bool // whether each open element is a text element
	inText := 0
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, ErrHostile) || errors.Is(err, ErrMalformed) {
				return err
			}
			return fmt.Errorf("%w: %s: %v", ErrMalformed, f.Name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return fmt.Errorf("%w: %s nests XML deeper than %d", ErrHostile, f.Name, maxDepth)
			}
			isText := rules.text(t.Name.Space, t.Name.Local)
			stack = append(stack, isText)
			if isText {
				inText++
			}
			if rules.space[t.Name.Local] {
				err = out.write(" ")
			}
		case xml.EndElement:
			if len(stack) > 0 {
				if stack[len(stack)-1] {
					inText--
				}
				stack = stack[:len(stack)-1]
			}
			if rules.brk[t.Name.Local] {
				err = out.brk()
			}
		case xml.CharData:
			if inText > 0 {
				err = out.write(string(t))
			}
		}
		if err != nil {
			return err
		}
	}
}
