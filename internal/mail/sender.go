package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	gomail "github.com/wneessen/go-mail"

	"coreportal/internal/fault"
)

// Message is one mail to send.
type Message struct {
	To      []string `json:"to"`
	Cc      []string `json:"cc,omitempty"`
	Bcc     []string `json:"bcc,omitempty"`
	Subject string   `json:"subject"`
	Text    string   `json:"text,omitempty"`
	HTML    string   `json:"html,omitempty"`
	ReplyTo string   `json:"replyTo,omitempty"`
}

// Validate checks the recipients, the subject (one line of text) and the body.
func (m Message) Validate() error {
	if len(m.To) == 0 {
		return fault.Validation("to", "at least one recipient is required")
	}
	if n := len(m.To) + len(m.Cc) + len(m.Bcc); n > 100 {
		return fault.Validation("to", "at most 100 recipients in total")
	}
	for field, list := range map[string][]string{"to": m.To, "cc": m.Cc, "bcc": m.Bcc} {
		for _, a := range list {
			if err := checkAddress(field, a); err != nil {
				return err
			}
		}
	}
	if m.ReplyTo != "" {
		if err := checkAddress("replyTo", m.ReplyTo); err != nil {
			return err
		}
	}
	if err := checkHeaderText("subject", m.Subject); err != nil {
		return err
	}
	if m.Text == "" && m.HTML == "" {
		return fault.Validation("text", "text or html is required")
	}
	return nil
}

// client opens an SMTP client for s: implicit TLS when Secure, else
// STARTTLS whenever the server offers it; when a user is set, the strongest
// mechanism the server offers (SCRAM, CRAM-MD5, PLAIN, LOGIN), PLAIN and LOGIN
// never over an unencrypted link except to localhost.
func client(s Settings, timeout time.Duration, tlsCfg *tls.Config) (*gomail.Client, error) {
	opts := []gomail.Option{gomail.WithPort(s.Port), gomail.WithTimeout(timeout)}
	if s.Secure {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	cfg := &tls.Config{ServerName: s.Host, MinVersion: tls.VersionTLS12}
	if tlsCfg != nil {
		cfg = tlsCfg.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = s.Host
		}
	}
	opts = append(opts, gomail.WithTLSConfig(cfg))
	if s.User != "" {
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1, gomail.SMTPAuthCramMD5,
			gomail.SMTPAuthPlain, gomail.SMTPAuthLogin), gomail.WithUsername(s.User), gomail.WithPassword(s.Password))
	}
	c, err := gomail.NewClient(s.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client: %w", err)
	}
	return c, nil
}

func build(s Settings, m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.From(s.sender()); err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	if err := msg.To(m.To...); err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	if len(m.Cc) > 0 {
		if err := msg.Cc(m.Cc...); err != nil {
			return nil, fmt.Errorf("cc: %w", err)
		}
	}
	if len(m.Bcc) > 0 {
		if err := msg.Bcc(m.Bcc...); err != nil {
			return nil, fmt.Errorf("bcc: %w", err)
		}
	}
	replyTo := m.ReplyTo
	if replyTo == "" {
		replyTo = s.ReplyTo
	}
	if replyTo != "" {
		if err := msg.ReplyTo(replyTo); err != nil {
			return nil, fmt.Errorf("reply-to: %w", err)
		}
	}
	msg.Subject(m.Subject)
	switch {
	case m.Text != "" && m.HTML != "":
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	case m.HTML != "":
		msg.SetBodyString(gomail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	}
	return msg, nil
}

func deliver(ctx context.Context, s Settings, m Message, timeout time.Duration, tlsCfg *tls.Config) error {
	msg, err := build(s, m)
	if err != nil {
		return err
	}
	c, err := client(s, timeout, tlsCfg)
	if err != nil {
		return err
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("send mail via %s:%d: %w", s.Host, s.Port, err)
	}
	return nil
}

// check connects, negotiates TLS and authenticates, then quits.
func check(ctx context.Context, s Settings, timeout time.Duration, tlsCfg *tls.Config) error {
	c, err := client(s, timeout, tlsCfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.DialWithContext(ctx); err != nil {
		return fmt.Errorf("connect to %s:%d: %w", s.Host, s.Port, err)
	}
	return c.Close()
}
