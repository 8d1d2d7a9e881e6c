package doctext

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// plainText copies text files: UTF-8 (invalid bytes folded to spaces),
// UTF-16 with a byte-order mark, or, when the start is not UTF-8,
// Windows-1251 (the usual legacy encoding of Russian text files).
func plainText(out *text, r io.Reader) error {
	return copyText(out, decoded(r))
}

// decoded picks the encoding from the first 64 KiB of r.
func decoded(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(64 << 10)
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		_, _ = br.Discard(3)
		return br
	}
	if !validPrefix(head) {
		return transform.NewReader(br, charmap.Windows1251.NewDecoder())
	}
	return br
}

// validPrefix: head is UTF-8, allowing a rune cut at its end.
func validPrefix(head []byte) bool {
	for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head)
}

func copyText(out *text, r io.Reader) error {
	br := bufio.NewReader(r)
	buf := make([]byte, 32<<10)
	carry := 0
	for {
		n, err := br.Read(buf[carry:])
		n += carry
		// keep an incomplete rune at the end for the next read
		end := n
		for k := 1; k <= 3 && n-k >= 0; k++ {
			if utf8.RuneStart(buf[n-k]) {
				if !utf8.FullRune(buf[n-k : n]) {
					end = n - k
				}
				break
			}
		}
		if err != nil {
			end = n
		}
		if werr := out.write(string(buf[:end])); werr != nil {
			return werr
		}
		carry = copy(buf, buf[end:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// skipped are HTML elements whose content is not text.
var skipped = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true}

// blocks are HTML elements that end a line.
var blocks = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "td": true, "th": true, "table": true, "section": true, "article": true, "title": true, "pre": true}

// htmlText keeps the text nodes of an HTML document (scripts and styles
// left out, entities decoded).
func htmlText(out *text, r io.Reader) error {
	z := html.NewTokenizer(decoded(r))
	z.SetMaxBuf(4 << 20)
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return z.Err()
		case html.StartTagToken:
			name, _ := z.TagName()
			if skipped[string(name)] {
				skip++
			}
			if blocks[string(name)] {
				if err := out.brk(); err != nil {
					return err
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if skipped[string(name)] && skip > 0 {
				skip--
			}
			if blocks[string(name)] {
				if err := out.brk(); err != nil {
					return err
				}
			}
		case html.TextToken:
			if skip == 0 {
				if err := out.write(string(z.Text())); err != nil {
					return err
				}
			}
		}
	}
}
