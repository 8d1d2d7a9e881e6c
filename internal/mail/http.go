package mail

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves the SMTP settings and /mail/send.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	get := web.Op(http.MethodGet, "/admin/settings/smtp", "getSmtpSettings", "SMTP settings (config of service notifications)", web.Admin, "admin-mail")
	get.Description += " The password is never returned: hasPassword says whether one is stored. Without a stored host the SMTP_* environment variables apply (source=environment)."
	web.Register(api, get, h.get)
	put := web.Op(http.MethodPut, "/admin/settings/smtp", "putSmtpSettings", "Replace the SMTP settings", web.Admin, "admin-mail")
	put.Description += " Omit password or send ******** to keep the stored one; an empty string clears it. An empty host falls back to SMTP_*. " +
		"host, user, fromEmail, fromName and replyTo go into mail headers or SMTP commands: each must be one line of text, and a control character " +
		"(C0 such as CR, LF or tab; DEL; C1 such as NEL U+0085) or a line separator (U+2028, U+2029) is refused with 400 VALIDATION_ERROR naming the field. " +
		"fromName may hold quotes and backslashes: it is quoted (or encoded) in the From header as RFC 5322 requires."
	web.Register(api, put, h.put)
	st := web.Op(http.MethodGet, "/admin/settings/smtp-status", "getSmtpStatus", "Check the connection to the SMTP server", web.Admin, "admin-mail")
	st.Description += " Connects, negotiates TLS and authenticates now; connected=false with error when that fails."
	web.Register(api, st, h.status)
	test := web.Op(http.MethodPost, "/admin/settings/smtp/test", "sendSmtpTest", "Send a test mail now", web.Admin, "admin-mail")
	test.Description += " Works while service notifications is disabled. 409 CONFLICT when SMTP is not configured, 503 UNAVAILABLE when the server refuses the mail."
	web.Register(api, test, h.test)
	send := web.Op(http.MethodPost, "/mail/send", "sendMail", "Send a mail", web.User, "mail")
	send.Description = `Administrators always; other users only when allowAuthenticatedSend is on (else 403).
Requires SMTP configured and service notifications enabled (else 409 CONFLICT, details.reason smtp_not_configured or service_disabled).
async=true (default): a notifications.sendEmail job is queued, 202 { async: true, jobId, status: "pending" }.
async=false: sent now, administrators only (else 403), 200 { async: false, status: "sent" }; 503 when the SMTP server refuses.
Addresses are bare (name@domain.tld); at most 100 recipients in total; text or html required; the subject is one line
(a control character such as CR, LF or tab, or a line separator, is refused with 400 VALIDATION_ERROR).`
	web.Register(api, web.Answers(send, http.StatusAccepted, http.StatusOK), h.send)
}

func (h *Handler) get(ctx context.Context, _ *struct{}) (*web.Out[SMTPSettings], error) {
	return web.Reply(h.svc.Settings(ctx))
}

// SMTPSettingsPut is the body of PUT /admin/settings/smtp; the read-only
// properties of the GET (hasPassword, configured, source) are accepted and ignored.
type SMTPSettingsPut struct {
	web.ReadOnlyFrom[SMTPSettings]
	SMTPSettingsInput
}

type putIn struct{ Body SMTPSettingsPut }

func (h *Handler) put(ctx context.Context, in *putIn) (*web.Out[SMTPSettings], error) {
	return web.Reply(h.svc.SaveSettings(ctx, in.Body.SMTPSettingsInput))
}

func (h *Handler) status(ctx context.Context, _ *struct{}) (*web.Out[SMTPStatus], error) {
	return web.Reply(h.svc.CheckStatus(ctx))
}

// SMTPTestBody is the body of POST /admin/settings/smtp/test.
type SMTPTestBody struct {
	To string `json:"to" maxLength:"254" doc:"recipient of the test mail"`
}

type testIn struct{ Body SMTPTestBody }

type SMTPTestResult struct {
	Sent bool   `json:"sent"`
	To   string `json:"to"`
}

func (h *Handler) test(ctx context.Context, in *testIn) (*web.Out[SMTPTestResult], error) {
	if err := h.svc.SendTest(ctx, strings.TrimSpace(in.Body.To)); err != nil {
		return nil, err
	}
	return web.OK(SMTPTestResult{Sent: true, To: in.Body.To}), nil
}

// MailRecipients is one address or a list of addresses.
type MailRecipients []string

// UnmarshalJSON accepts "a@b.c" or ["a@b.c", …].
func (r *MailRecipients) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*r = MailRecipients{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*r = many
	return nil
}

// Schema documents the two accepted shapes.
func (MailRecipients) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{
		{Type: huma.TypeString, Format: "email"},
		{Type: huma.TypeArray, Items: &huma.Schema{Type: huma.TypeString, Format: "email"}, MaxItems: ptr(100)},
	}}
}

func ptr(i int) *int { return &i }

// MailSendBody is the body of POST /mail/send.
type MailSendBody struct {
	To      MailRecipients `json:"to"`
	Cc      []string       `json:"cc,omitempty" maxItems:"100"`
	Bcc     []string       `json:"bcc,omitempty" maxItems:"100"`
	Subject string         `json:"subject,omitempty" maxLength:"998"`
	Text    string         `json:"text,omitempty" maxLength:"1000000"`
	HTML    string         `json:"html,omitempty" maxLength:"1000000"`
	ReplyTo string         `json:"replyTo,omitempty" maxLength:"254"`
	Async   *bool          `json:"async,omitempty" doc:"default true"`
}

type sendIn struct{ Body MailSendBody }

func (h *Handler) send(ctx context.Context, in *sendIn) (*web.Out[MailSendResult], error) {
	b := in.Body
	async := b.Async == nil || *b.Async
	res, err := h.svc.Send(ctx, Message{To: b.To, Cc: b.Cc, Bcc: b.Bcc, Subject: b.Subject, Text: b.Text, HTML: b.HTML, ReplyTo: b.ReplyTo}, async)
	if err != nil {
		return nil, err
	}
	if res.Async {
		return web.Accepted(res), nil
	}
	return web.OK(res), nil
}
