package mail

import (
	"net/mail"
	"strings"
	"unicode"

	"coreportal/internal/fault"
)

// Values that end up in a mail header or an SMTP command (sender name and
// address, reply-to, host, user, subject) must be one line of text: a
// control character (C0 with CR, LF and tab, DEL, C1 with NEL) or a Unicode
// line or paragraph separator would either break the header or make every
// send fail. They are refused with 400 VALIDATION_ERROR naming the field.

// checkHeaderText refuses control characters and line separators in v.
func checkHeaderText(field, v string) error {
	if strings.IndexFunc(v, breaksHeader) >= 0 {
		return fault.Validation(field, "%s must be one line of text without control characters (CR, LF, tab, …) or line separators", field)
	}
	return nil
}

func breaksHeader(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// checkHeaders checks the header-bound values of stored settings.
func (s Settings) checkHeaders() error {
	for _, f := range [][2]string{{"host", s.Host}, {"user", s.User}, {"fromEmail", s.FromEmail}, {"fromName", s.FromName}, {"replyTo", s.ReplyTo}} {
		if err := checkHeaderText(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

// sender is the From header value: the name quoted (or encoded) as RFC 5322
// requires, so that quotes and backslashes in it are kept as text.
func (s Settings) sender() string {
	if s.FromName == "" {
		return s.FromEmail
	}
	return (&mail.Address{Name: s.FromName, Address: s.FromEmail}).String()
}

// OneLine turns a rendered header value (a subject template with its
// placeholders filled in) into one line: each control character or line
// separator becomes a space.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if breaksHeader(r) {
			return ' '
		}
		return r
	}, s)
}
