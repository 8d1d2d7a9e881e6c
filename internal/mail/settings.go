// Package mail keeps the SMTP settings (config of service notifications),
// checks the connection and sends mail through a real SMTP client
// (wneessen/go-mail: implicit TLS or STARTTLS, authentication), directly or
// as notifications.sendEmail jobs.
package mail

import (
	"net/mail"
	"strings"

	"coreportal/internal/config"
	"coreportal/internal/fault"
)

// Mask is the placeholder that keeps a stored password.
const Mask = "********"

// Settings is the stored SMTP configuration.
type Settings struct {
	Host                   string `json:"host"`
	Port                   int    `json:"port"`
	Secure                 bool   `json:"secure"`
	User                   string `json:"user"`
	Password               string `json:"password,omitempty"`
	FromEmail              string `json:"fromEmail"`
	FromName               string `json:"fromName"`
	ReplyTo                string `json:"replyTo"`
	AllowAuthenticatedSend bool   `json:"allowAuthenticatedSend"`
}

// SMTPSettings is the settings as the API returns them: never the password.
type SMTPSettings struct {
	Host                   string `json:"host"`
	Port                   int    `json:"port"`
	Secure                 bool   `json:"secure" doc:"true: implicit TLS (usually port 465); false: STARTTLS when the server offers it"`
	User                   string `json:"user"`
	HasPassword            bool   `json:"hasPassword"`
	FromEmail              string `json:"fromEmail"`
	FromName               string `json:"fromName"`
	ReplyTo                string `json:"replyTo"`
	AllowAuthenticatedSend bool   `json:"allowAuthenticatedSend"`
	Configured             bool   `json:"configured" doc:"host and fromEmail are set (stored or from SMTP_* variables)"`
	Source                 string `json:"source" enum:"settings,environment,none" doc:"where the effective connection settings come from"`
}

// effective applies the SMTP_* fallback: the stored settings win as soon as
// a host is stored; otherwise the environment's connection is used (the
// allowAuthenticatedSend switch always comes from the stored settings).
func effective(stored Settings, cfg config.Config) (Settings, string) {
	if stored.Host != "" {
		return withDefaults(stored), "settings"
	}
	if cfg.SMTPHost == "" {
		return withDefaults(stored), "none"
	}
	e := Settings{Host: cfg.SMTPHost, Port: cfg.SMTPPort, User: cfg.SMTPUser, Password: cfg.SMTPPassword,
		FromEmail: cfg.SMTPFrom, AllowAuthenticatedSend: stored.AllowAuthenticatedSend, Secure: cfg.SMTPPort == 465}
	if addr, err := mail.ParseAddress(cfg.SMTPFrom); err == nil {
		e.FromEmail, e.FromName = addr.Address, addr.Name
	}
	return withDefaults(e), "environment"
}

func withDefaults(s Settings) Settings {
	if s.Port == 0 {
		s.Port = 587
		if s.Secure {
			s.Port = 465
		}
	}
	return s
}

func (s Settings) configured() bool { return s.Host != "" && s.FromEmail != "" }

func (s Settings) view(source string) SMTPSettings {
	return SMTPSettings{Host: s.Host, Port: s.Port, Secure: s.Secure, User: s.User, HasPassword: s.Password != "", FromEmail: s.FromEmail,
		FromName: s.FromName, ReplyTo: s.ReplyTo, AllowAuthenticatedSend: s.AllowAuthenticatedSend, Configured: s.configured(), Source: source}
}

// SMTPSettingsInput is the body of PUT /admin/settings/smtp.
type SMTPSettingsInput struct {
	Host                   string  `json:"host" maxLength:"255" doc:"empty: use the SMTP_* variables when set"`
	Port                   int     `json:"port,omitempty" minimum:"0" maximum:"65535" doc:"0: 465 when secure, else 587"`
	Secure                 bool    `json:"secure,omitempty"`
	User                   string  `json:"user,omitempty" maxLength:"255"`
	Password               *string `json:"password,omitempty" maxLength:"512" doc:"omit or send ******** to keep the stored password (only while host, port and user stay the same: otherwise 400, re-enter it); empty clears it"`
	FromEmail              string  `json:"fromEmail,omitempty" maxLength:"254"`
	FromName               string  `json:"fromName,omitempty" maxLength:"200"`
	ReplyTo                string  `json:"replyTo,omitempty" maxLength:"254"`
	AllowAuthenticatedSend bool    `json:"allowAuthenticatedSend,omitempty"`
}

// apply validates in and returns the new stored settings.
func (in SMTPSettingsInput) apply(old Settings) (Settings, error) {
	s := Settings{Host: strings.TrimSpace(in.Host), Port: in.Port, Secure: in.Secure, User: strings.TrimSpace(in.User),
		Password: old.Password, FromEmail: strings.TrimSpace(in.FromEmail), FromName: strings.TrimSpace(in.FromName),
		ReplyTo: strings.TrimSpace(in.ReplyTo), AllowAuthenticatedSend: in.AllowAuthenticatedSend}
	keep := in.Password == nil || *in.Password == Mask
	if !keep {
		s.Password = *in.Password
	}
	if strings.ContainsAny(s.Host, " /:@") {
		return s, fault.Validation("host", "host must be a host name or IP address without scheme or port")
	}
	if keep && old.Password != "" && !sameServer(old, s) {
		// the stored secret must never be handed to a server or user it was not entered for
		return s, fault.Validation("password", "re-enter the password when the server or user changes (or send an empty password to clear it)")
	}
	if err := s.checkHeaders(); err != nil {
		return s, err
	}
	if s.Host != "" && s.FromEmail == "" {
		return s, fault.Validation("fromEmail", "fromEmail is required when host is set")
	}
	if s.FromEmail != "" {
		if err := checkAddress("fromEmail", s.FromEmail); err != nil {
			return s, err
		}
	}
	if s.ReplyTo != "" {
		if err := checkAddress("replyTo", s.ReplyTo); err != nil {
			return s, err
		}
	}
	return s, nil
}

// sameServer says whether a and b authenticate the same user at the same
// server (host name case-insensitive, ports after defaults).
func sameServer(a, b Settings) bool {
	return strings.EqualFold(a.Host, b.Host) && withDefaults(a).Port == withDefaults(b).Port && a.User == b.User
}

// checkAddress accepts a bare address (name@domain) only.
func checkAddress(field, v string) error {
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || !strings.Contains(a.Address[strings.LastIndex(a.Address, "@")+1:], ".") && !strings.HasSuffix(a.Address, "@localhost") {
		return fault.Validation(field, "%q is not a valid email address", v)
	}
	return nil
}
