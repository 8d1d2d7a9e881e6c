package mail

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/config"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/services"
)

// JobSendEmail is the job type of queued mail.
const JobSendEmail = "notifications.sendEmail"

// Service holds the mail rules.
type Service struct {
	svc *services.Service
	q   *jobs.Queue
	env config.Config
	// Timeout bounds one SMTP conversation (default 20s).
	Timeout time.Duration
	// TLS, when set, replaces the default TLS configuration (tests trust a self-signed server with it).
	TLS *tls.Config
}

// New builds the mail service and registers the notifications.sendEmail handler on q.
func New(svc *services.Service, q *jobs.Queue, env config.Config) *Service {
	s := &Service{svc: svc, q: q, env: env, Timeout: 20 * time.Second}
	q.Handle(JobSendEmail, s.handleSend)
	return s
}

func (s *Service) stored(ctx context.Context) (Settings, error) {
	raw, err := s.svc.Config(ctx, services.KeyNotifications)
	if err != nil {
		return Settings{}, err
	}
	var st Settings
	if err := json.Unmarshal(raw, &st); err != nil {
		return Settings{}, fmt.Errorf("decode SMTP settings: %w", err)
	}
	return st, nil
}

// Effective returns the settings in force (stored, else SMTP_*) and their source.
func (s *Service) Effective(ctx context.Context) (Settings, string, error) {
	st, err := s.stored(ctx)
	if err != nil {
		return Settings{}, "", err
	}
	e, src := effective(st, s.env)
	return e, src, nil
}

// Settings returns the settings for the API (no password).
func (s *Service) Settings(ctx context.Context) (SMTPSettings, error) {
	e, src, err := s.Effective(ctx)
	if err != nil {
		return SMTPSettings{}, err
	}
	return e.view(src), nil
}

// SaveSettings validates and stores new settings.
func (s *Service) SaveSettings(ctx context.Context, in SMTPSettingsInput) (SMTPSettings, error) {
	// read, check and write under the row lock: the password kept is the one
	// stored for the server compared against, and no concurrent write is lost
	err := s.svc.UpdateConfig(ctx, services.KeyNotifications, func(raw json.RawMessage) (any, error) {
		var old Settings
		if err := json.Unmarshal(raw, &old); err != nil {
			return nil, fmt.Errorf("decode SMTP settings: %w", err)
		}
		return in.apply(old)
	})
	if err != nil {
		return SMTPSettings{}, err
	}
	return s.Settings(ctx)
}

// SMTPStatus is the result of the connection check.
type SMTPStatus struct {
	Configured bool   `json:"configured"`
	Connected  bool   `json:"connected"`
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Secure     bool   `json:"secure"`
	Source     string `json:"source"`
	Error      string `json:"error,omitempty"`
}

// CheckStatus connects to the SMTP server (TLS and authentication included).
func (s *Service) CheckStatus(ctx context.Context) (SMTPStatus, error) {
	e, src, err := s.Effective(ctx)
	if err != nil {
		return SMTPStatus{}, err
	}
	st := SMTPStatus{Configured: e.configured(), Host: e.Host, Port: e.Port, Secure: e.Secure, Source: src}
	if !st.Configured {
		st.Error = "SMTP is not configured"
		return st, nil
	}
	if err := check(ctx, e, s.Timeout, s.TLS); err != nil {
		st.Error = err.Error()
		return st, nil
	}
	st.Connected = true
	return st, nil
}

func (s *Service) configured(ctx context.Context) (Settings, error) {
	e, _, err := s.Effective(ctx)
	if err != nil {
		return Settings{}, err
	}
	if !e.configured() {
		return Settings{}, fault.Conflict("SMTP is not configured: set host and fromEmail in /admin/settings/smtp").With("reason", "smtp_not_configured")
	}
	return e, nil
}

// SendTest sends a test message now; it works while notifications is disabled.
func (s *Service) SendTest(ctx context.Context, to string) error {
	if err := checkAddress("to", to); err != nil {
		return err
	}
	e, err := s.configured(ctx)
	if err != nil {
		return err
	}
	m := Message{To: []string{to}, Subject: "Core Portal test message",
		Text: "This is a test message from Core Portal. Your SMTP settings work."}
	if err := deliver(ctx, e, m, s.Timeout, s.TLS); err != nil {
		return fault.New(fault.CodeUnavailable, "the SMTP server did not accept the message: %v", err)
	}
	return nil
}

// MailSendResult answers POST /mail/send.
type MailSendResult struct {
	Async  bool   `json:"async"`
	JobID  string `json:"jobId,omitempty" format:"uuid"`
	Status string `json:"status" enum:"pending,sent"`
}

// Send applies the rules of POST /mail/send: administrators always, other
// users when allowAuthenticatedSend; SMTP configured and notifications
// enabled; async (default) queues a job, sync sends now (administrators only).
func (s *Service) Send(ctx context.Context, m Message, async bool) (MailSendResult, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return MailSendResult{}, err
	}
	e, _, err := s.Effective(ctx)
	if err != nil {
		return MailSendResult{}, err
	}
	if !p.IsAdmin && !e.AllowAuthenticatedSend {
		return MailSendResult{}, fault.Forbidden("only administrators may send mail (allowAuthenticatedSend is off)")
	}
	if !async && !p.IsAdmin {
		return MailSendResult{}, fault.Forbidden("only administrators may send synchronously (async=false)")
	}
	if err := m.Validate(); err != nil {
		return MailSendResult{}, err
	}
	if e, err = s.configured(ctx); err != nil {
		return MailSendResult{}, err
	}
	if err := s.requireEnabled(ctx); err != nil {
		return MailSendResult{}, err
	}
	if !async {
		if err := deliver(ctx, e, m, s.Timeout, s.TLS); err != nil {
			return MailSendResult{}, fault.New(fault.CodeUnavailable, "the SMTP server did not accept the message: %v", err)
		}
		return MailSendResult{Async: false, Status: "sent"}, nil
	}
	id, err := s.q.Enqueue(ctx, JobSendEmail, sendPayload{Message: m, RequestedBy: p.UserID})
	if err != nil {
		return MailSendResult{}, err
	}
	return MailSendResult{Async: true, JobID: id, Status: jobs.StatusPending}, nil
}

func (s *Service) requireEnabled(ctx context.Context) error {
	on, err := s.svc.Enabled(ctx, services.KeyNotifications)
	if err != nil {
		return err
	}
	if !on {
		return fault.Conflict("the notifications service is disabled").With("reason", "service_disabled")
	}
	return nil
}

type sendPayload struct {
	Message
	RequestedBy string `json:"requestedBy,omitempty"`
}

// Deliver sends m now with the settings in force (handlers of other job
// types, e.g. notifications.sendEventEmail). It fails permanently when mail
// is not configured or notifications is disabled.
func (s *Service) Deliver(ctx context.Context, m Message) error {
	if err := m.Validate(); err != nil {
		return jobs.Permanent(err)
	}
	e, err := s.configured(ctx)
	if err != nil {
		return jobs.Permanent(err)
	}
	if err := s.requireEnabled(ctx); err != nil {
		return jobs.Permanent(err)
	}
	return deliver(ctx, e, m, s.Timeout, s.TLS)
}

func (s *Service) handleSend(ctx context.Context, j *jobs.Job) (any, error) {
	var p sendPayload
	if err := j.Decode(&p); err != nil {
		return nil, jobs.Permanent(fmt.Errorf("decode payload: %w", err))
	}
	if err := s.Deliver(ctx, p.Message); err != nil {
		return nil, err
	}
	return map[string]any{"sent": true, "recipients": len(p.To) + len(p.Cc) + len(p.Bcc)}, nil
}
