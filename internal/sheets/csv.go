package sheets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

const sniffBytes = 64 << 10

type csvReader struct {
	r      *csv.Reader
	guard  *guard
	header []string
	line   int
	rows   int
	info   Info
	lim    Limits
}

// detectEncoding names the encoding of a sample: a BOM decides, then valid
// UTF-8, then UTF-16 without BOM (every other byte zero), else Windows-1251
// (the usual ANSI code page of Russian Excel and SharePoint exports).
func detectEncoding(b []byte) (string, encoding.Encoding) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return "utf-8", xunicode.UTF8BOM
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "utf-16le", xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "utf-16be", xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM)
	}
	if len(b) >= 4 && b[1] == 0 && b[3] == 0 && b[0] != 0 {
		return "utf-16le", xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM)
	}
	if len(b) >= 4 && b[0] == 0 && b[2] == 0 && b[1] != 0 {
		return "utf-16be", xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM)
	}
	// a sample may end inside a rune
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1]
	}
	if utf8.Valid(b) {
		return "utf-8", xunicode.UTF8
	}
	return "windows-1251", charmap.Windows1251
}

// detectSeparator picks the separator among , ; and tab that splits the
// first lines (outside quotes) most consistently: the same non-zero count on
// every line wins, then the largest count on the first line.
func detectSeparator(sample string) rune {
	lines := sampleLines(sample, 20)
	best, bestScore := ',', -1
	for _, sep := range []rune{',', ';', '\t'} {
		counts := make([]int, len(lines))
		for i, l := range lines {
			counts[i] = countOutsideQuotes(l, sep)
		}
		score := 0
		if len(counts) > 0 && counts[0] > 0 {
			score = counts[0]
			same := true
			for _, c := range counts[1:] {
				if c != counts[0] {
					same = false
				}
			}
			if same {
				score += 1_000_000
			}
		}
		if score > bestScore {
			best, bestScore = sep, score
		}
	}
	return best
}

// sampleLines splits a sample into records (line breaks inside quotes
// kept), dropping the last one, which may be cut.
func sampleLines(s string, max int) []string {
	var out []string
	inQ, start := false, 0
	for i, r := range s {
		switch {
		case r == '"':
			inQ = !inQ
		case r == '\n' && !inQ:
			if l := strings.TrimRight(s[start:i], "\r"); l != "" {
				out = append(out, l)
			}
			start = i + 1
			if len(out) == max {
				return out
			}
		}
	}
	if len(out) == 0 && start < len(s) {
		out = append(out, s[start:]) // one line only
	}
	return out
}

func countOutsideQuotes(l string, sep rune) int {
	n, inQ := 0, false
	for _, r := range l {
		if r == '"' {
			inQ = !inQ
		} else if r == sep && !inQ {
			n++
		}
	}
	return n
}

// guard fails the read when one CSV record grows beyond its limit: the csv
// package keeps a whole record in memory.
type guard struct {
	r     io.Reader
	read  int64
	mark  int64
	limit int64
}

func (g *guard) Read(p []byte) (int, error) {
	if g.read-g.mark > g.limit {
		return 0, limitErr("a row is longer than %d bytes", g.limit)
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	return n, err
}

func openCSV(r io.Reader, lim Limits) (Reader, error) {
	br := bufio.NewReaderSize(r, sniffBytes)
	sample, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(sample) == 0 {
		return nil, errors.Join(ErrFormat, errors.New("the file is empty"))
	}
	if bytes.IndexByte(sample, 0) >= 0 && !utf16Like(sample) {
		return nil, errors.Join(ErrFormat, errors.New("the file is binary"))
	}
	name, enc := detectEncoding(sample)
	decoded, _, _ := transform.Bytes(enc.NewDecoder(), sample)
	sep := detectSeparator(strings.TrimPrefix(string(decoded), "\uFEFF"))
	g := &guard{r: transform.NewReader(br, enc.NewDecoder()), limit: int64(lim.MaxRecordBytes)}
	cr := csv.NewReader(bomSkipper(g))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes, cr.ReuseRecord = sep, -1, true, true
	c := &csvReader{r: cr, guard: g, lim: lim, info: Info{Format: "csv", Encoding: name, Separator: string(sep)}}
	rec, err := c.record()
	if errors.Is(err, io.EOF) {
		return nil, errors.Join(ErrFormat, errors.New("the file has no header row"))
	}
	if err != nil {
		return nil, err
	}
	c.header = trimHeader(rec)
	return c, nil
}

func utf16Like(b []byte) bool {
	n, _ := detectEncoding(b)
	return strings.HasPrefix(n, "utf-16")
}

// bomSkipper drops a leading U+FEFF left by a decoder that keeps it.
func bomSkipper(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if rr, _, err := br.ReadRune(); err == nil && rr != '\uFEFF' {
		_ = br.UnreadRune()
	}
	return br
}

func (c *csvReader) record() ([]string, error) {
	rec, err := c.r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, errors.Join(ErrFormat, err)
		}
		return nil, err
	}
	c.guard.mark = c.guard.read
	c.line, _ = c.r.FieldPos(0)
	if len(rec) > c.lim.MaxColumns {
		return nil, limitErr("row %d has %d columns, more than %d", c.line, len(rec), c.lim.MaxColumns)
	}
	for _, s := range rec {
		if utf8.RuneCountInString(s) > c.lim.MaxCellChars {
			return nil, limitErr("a cell of row %d has more than %d characters", c.line, c.lim.MaxCellChars)
		}
	}
	return rec, nil
}

func (c *csvReader) Next() ([]Cell, error) {
	for {
		rec, err := c.record()
		if err != nil {
			return nil, err
		}
		if blank(rec) {
			continue
		}
		c.rows++
		if c.rows > c.lim.MaxRows {
			return nil, limitErr("more than %d rows", c.lim.MaxRows)
		}
		out := make([]Cell, len(rec))
		for i, s := range rec {
			out[i] = Cell{Kind: Text, Text: s}
		}
		return out, nil
	}
}

func blank(rec []string) bool {
	for _, s := range rec {
		if trimSpace(s) != "" {
			return false
		}
	}
	return true
}

func trimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

func (c *csvReader) Header() []string { return c.header }
func (c *csvReader) Line() int        { return c.line }
func (c *csvReader) Info() Info       { return c.info }
func (c *csvReader) Close() error     { return nil }
