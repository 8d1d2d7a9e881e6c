package export

import (
	"fmt"
	"strings"
	"unicode"
)

// Breaks reports whether r must not appear raw in a line of an export: every
// control character (C0 with tab, LF, CR, VT and FF; DEL; C1 with NEL
// U+0085) and the Unicode line and paragraph separators U+2028 and U+2029,
// which some viewers and parsers treat as line breaks.
func Breaks(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// EscapeText writes free text on one line without ambiguity: the
// characters Breaks reports become \n, \r, \t or \uXXXX, and a backslash
// becomes \\, so that a forged line break in user-controlled text (a login
// tried at sign-in, a message) stays visible as an escape.
func EscapeText(s string) string { return escape(s, true) }

// EscapeControls escapes only the characters Breaks reports, as EscapeText
// does, and keeps backslashes: for text already in a notation where a
// backslash has a meaning (a JSON value, which stays valid JSON) and for
// CSV cells, whose quoting already keeps them apart.
func EscapeControls(s string) string { return escape(s, false) }

func escape(s string, backslash bool) string {
	if strings.IndexFunc(s, func(r rune) bool { return Breaks(r) || backslash && r == '\\' }) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case Breaks(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
