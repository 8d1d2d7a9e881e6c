package web

import (
	"fmt"
	"path"
	"strings"
	"unicode"
)

// MaxFileName is the most characters a stored file name keeps (library
// files, list attachments): longer upload names keep their last characters,
// so the extension survives.
const MaxFileName = 255

// NameControl reports the characters a file or folder name may not hold:
// control characters (C0, DEL and C1, e.g. CR, LF, NEL, CSI) and the
// bidirectional embedding, override and isolate marks, which make
// "invoice\u202Efdp.exe" display as "invoiceexe.pdf".
func NameControl(r rune) bool {
	return unicode.Is(unicode.Cc, r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// UploadName turns the file name of a multipart part into a stored name: the
// last path element (a client path or "../" never reaches the name), the
// characters NameControl reports removed, "file" when nothing is left.
func UploadName(raw string) string {
	n := path.Base(strings.ReplaceAll(raw, `\`, "/"))
	n = strings.Map(func(r rune) rune {
		if NameControl(r) {
			return -1
		}
		return r
	}, n)
	n = strings.TrimSpace(n)
	if n == "" || n == "." || n == ".." || n == "/" {
		n = "file"
	}
	if r := []rune(n); len(r) > MaxFileName {
		n = string(r[len(r)-MaxFileName:])
	}
	return n
}

// ContentDisposition is an RFC 6266 attachment header for any file name: an
// ASCII fallback in filename (quotes, backslashes, controls and non-ASCII
// replaced by _) and the exact name in filename* (RFC 5987, UTF-8, percent-encoded).
func ContentDisposition(name string) string {
	var ascii, enc strings.Builder
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			continue
		case r > 0x7e || r == '"' || r == '\\' || r == '%':
			ascii.WriteByte('_')
		default:
			ascii.WriteRune(r)
		}
	}
	for _, b := range []byte(name) {
		if b < 0x20 || b == 0x7f {
			continue
		}
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("!#$&+-.^_`|~", b) >= 0 {
			enc.WriteByte(b)
		} else {
			fmt.Fprintf(&enc, "%%%02X", b)
		}
	}
	fallback := ascii.String()
	if strings.TrimSpace(fallback) == "" {
		fallback = "file"
	}
	return `attachment; filename="` + fallback + `"; filename*=UTF-8''` + enc.String()
}
