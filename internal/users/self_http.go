package users

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// SelfHandler serves what a signed-in user changes of their own account:
// the password and the interface preferences.
type SelfHandler struct {
	svc  *Service
	auth *auth.Service
}

// NewSelfHandler builds the self-service handler.
func NewSelfHandler(svc *Service, a *auth.Service) *SelfHandler {
	return &SelfHandler{svc: svc, auth: a}
}

// Register adds the routes.
func (h *SelfHandler) Register(api huma.API) {
	cp := web.Op(http.MethodPost, "/auth/change-password", "changeOwnPassword", "Change one's own password (local accounts)", web.User, "auth")
	cp.Description = "Sets a new password of the signed-in user's local account after checking the current one. " +
		"newPassword must have 8 to 256 characters, not only white space, must not be one of the 10,000 most common passwords, " +
		"must not equal the login or e-mail (ignoring case) and must differ from the current password; otherwise 400 VALIDATION_ERROR on field newPassword. " +
		"A wrong currentPassword answers 400 VALIDATION_ERROR on field currentPassword and counts as a failed sign-in of the login from the caller's address " +
		"(the sign-in throttle's limits apply: 429 RATE_LIMITED with Retry-After once they are reached). " +
		"A domain account's password is managed by the directory: 400 VALIDATION_ERROR. " +
		"On success every session of the user ends, the calling one included: the answer carries a fresh token (as POST /auth/login does) and sets the core_token cookie to it."
	cp.Responses = map[string]*huma.Response{"429": {Description: "RATE_LIMITED: too many wrong passwords for this login from this address; Retry-After says when to try again"}}
	web.Register(api, cp, h.changePassword)

	get := web.Op(http.MethodGet, "/auth/me/preferences", "getMyPreferences", "The signed-in user's interface preferences", web.User, "auth")
	get.Description = "language (ru or en) and timeZone (an IANA name such as Europe/Moscow); null means not chosen: the console follows the browser. GET /auth/me carries them too, as preferences."
	web.Register(api, get, h.preferences)
	patch := web.Op(http.MethodPatch, "/auth/me/preferences", "updateMyPreferences", "Change the signed-in user's interface preferences", web.User, "auth")
	patch.Description = "Sets the properties sent and leaves the others; null clears one. language must be ru or en, timeZone an IANA time zone name " +
		"as the tz database spells it (Europe/Moscow, UTC; case matters); otherwise 400 VALIDATION_ERROR naming the field. Answers the preferences as stored."
	web.Register(api, patch, h.setPreferences)
}

type changePasswordIn struct {
	Body struct {
		CurrentPassword string `json:"currentPassword" minLength:"1" maxLength:"1024" doc:"the password the user signs in with now"`
		NewPassword     string `json:"newPassword" maxLength:"256" doc:"the new password (password policy: see the description)"`
	}
}

type sessionData struct {
	Token     string    `json:"token" doc:"the fresh token: every token of the user issued before stopped working"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type changePasswordOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      web.Envelope[sessionData]
}

func (h *SelfHandler) changePassword(ctx context.Context, in *changePasswordIn) (*changePasswordOut, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.svc.CheckOwnPasswordChange(ctx, p.UserID, in.Body.NewPassword); err != nil {
		return nil, err
	}
	if err := h.auth.CheckOwnPassword(ctx, p, in.Body.CurrentPassword); err != nil {
		return nil, err
	}
	if in.Body.NewPassword == in.Body.CurrentPassword {
		return nil, fault.Validation("newPassword", "the new password must differ from the current one")
	}
	version, err := h.svc.ChangeOwnPassword(ctx, p.UserID, in.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	sess, err := h.auth.Reissue(p.UserID, version)
	if err != nil {
		return nil, err
	}
	return &changePasswordOut{SetCookie: auth.SessionCookie(ctx, sess),
		Body: web.Envelope[sessionData]{Success: true, Data: sessionData{Token: sess.Token, ExpiresAt: sess.ExpiresAt.UTC()}}}, nil
}

func (h *SelfHandler) preferences(ctx context.Context, _ *struct{}) (*web.Out[Preferences], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Preferences(ctx, p.UserID))
}

type preferencesIn struct {
	Body struct {
		Language optLanguage `json:"language,omitempty" required:"false" doc:"ru or en; null clears"`
		TimeZone optString   `json:"timeZone,omitempty" required:"false" maxLength:"64" doc:"IANA time zone name, e.g. Europe/Moscow; null clears"`
	}
}

func (h *SelfHandler) setPreferences(ctx context.Context, in *preferencesIn) (*web.Out[Preferences], error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	var patch PreferencesPatch
	for _, f := range []struct {
		name string
		opt  optString
		dst  **string
	}{{"language", optString(in.Body.Language), &patch.Language}, {"timeZone", in.Body.TimeZone, &patch.TimeZone}} {
		if !f.opt.Sent {
			continue
		}
		if !f.opt.Null && f.opt.Value == "" {
			return nil, fault.Validation(f.name, "%s must not be empty; send null to clear it", f.name)
		}
		v := f.opt.Value
		*f.dst = &v
	}
	return web.Reply(h.svc.SetPreferences(ctx, p.UserID, patch))
}

// optString is a JSON property that tells absent, null and a value apart.
type optString struct {
	Sent  bool
	Null  bool
	Value string
}

// UnmarshalJSON records that the property was sent.
func (o *optString) UnmarshalJSON(b []byte) error {
	o.Sent = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Schema documents the property as a nullable string.
func (o optString) Schema(r huma.Registry) *huma.Schema {
	s := r.Schema(reflect.TypeOf(""), true, "")
	s.Nullable = true
	return s
}

// LanguageName is a language of Languages in answers; the schema admits null
// (a nil *LanguageName) in its enum, as JSON Schema needs.
type LanguageName string

// Schema documents the value as one of Languages or null.
func (LanguageName) Schema(r huma.Registry) *huma.Schema {
	return optLanguage{}.Schema(r)
}

// optLanguage is an optString documented with the interface languages.
type optLanguage optString

// UnmarshalJSON records that the property was sent.
func (o *optLanguage) UnmarshalJSON(b []byte) error { return (*optString)(o).UnmarshalJSON(b) }

// Schema documents the property as one of Languages or null.
func (o optLanguage) Schema(r huma.Registry) *huma.Schema {
	s := optString{}.Schema(r)
	for _, l := range Languages {
		s.Enum = append(s.Enum, l)
	}
	s.Enum = append(s.Enum, nil) // JSON Schema checks enum even where the type admits null
	return s
}
