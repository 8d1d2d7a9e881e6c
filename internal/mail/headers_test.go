package mail

import (
	"bytes"
	"strings"
	"testing"

	"coreportal/internal/fault"
)

// TestHeaderValuesAreOneLine: every settings value bound for a header or an
// SMTP command, and a subject, refuses control characters and line
// separators with a validation error naming the field.
func TestHeaderValuesAreOneLine(t *testing.T) {
	base := SMTPSettingsInput{Host: "smtp.example.com", FromEmail: "portal@example.com", FromName: "Portal"}
	for field, bad := range map[string]func(*SMTPSettingsInput, string){
		"fromName":  func(in *SMTPSettingsInput, v string) { in.FromName = "Portal" + v + "Bcc: x@example.com" },
		"host":      func(in *SMTPSettingsInput, v string) { in.Host = "smtp" + v + ".example.com" },
		"user":      func(in *SMTPSettingsInput, v string) { in.User = "u" + v + "AUTH" },
		"fromEmail": func(in *SMTPSettingsInput, v string) { in.FromEmail = "portal" + v + "@example.com" },
		"replyTo":   func(in *SMTPSettingsInput, v string) { in.ReplyTo = "r" + v + "@example.com" },
	} {
		for _, v := range []string{"\r\n", "\n", "\r", "\t", "\u0085", "\u2028", "\x7f", "\x00"} {
			in := base
			bad(&in, v)
			_, err := in.apply(Settings{})
			if fe, ok := fault.As(err); !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != field {
				t.Errorf("%s with %q: %v, want a validation error of %s", field, v, err, field)
			}
		}
	}
	m := Message{To: []string{"a@example.com"}, Subject: "Hello\r\nBcc: x@example.com", Text: "x"}
	if fe, ok := fault.As(m.Validate()); !ok || fe.Details["field"] != "subject" {
		t.Errorf("subject with CR/LF: %v", m.Validate())
	}
	if got := OneLine("a\r\nb\u0085c\u2028d"); got != "a  b c d" {
		t.Errorf("OneLine: %q", got)
	}
}

// TestFromNameQuoted: a sender name with quotes, a backslash, a comma and
// non-ASCII letters builds a message whose From header carries it.
func TestFromNameQuoted(t *testing.T) {
	s := Settings{FromEmail: "portal@example.com", FromName: `Core "Portal", IT \ Département`}
	msg, err := build(s, Message{To: []string{"a@example.com"}, Subject: "s", Text: "x"})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	from := msg.GetFrom()
	if len(from) != 1 || from[0].Name != s.FromName || from[0].Address != s.FromEmail {
		t.Fatalf("From %v", from)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil || !strings.Contains(buf.String(), "portal@example.com") {
		t.Fatalf("write: %v %q", err, buf.String())
	}
}
