// Package sso is single sign-on: OpenID Connect sign-in (authorization code
// with PKCE; provider settings in the config of service oidc) and Windows
// integrated sign-in (Kerberos through SPNEGO, with a service keytab).
// Both end in the same session as a password sign-in.
package sso

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"coreportal/internal/fault"
)

// Mask is the placeholder that keeps the stored client secret.
const Mask = "********"

// Defaults of the OpenID Connect settings.
const (
	DefaultLoginClaim  = "preferred_username"
	DefaultGroupsClaim = "groups"
	MatchLogin         = "login"
	MatchEmail         = "email"
)

// DefaultScopes are asked for when scopes is empty.
var DefaultScopes = []string{"openid", "profile", "email", "groups"}

// Config is the stored config of service oidc.
type Config struct {
	Issuer         string   `json:"issuer"`
	ClientID       string   `json:"clientId"`
	ClientSecret   string   `json:"clientSecret,omitempty"`
	Scopes         []string `json:"scopes,omitempty"`
	LoginClaim     string   `json:"loginClaim,omitempty"`
	GroupsClaim    string   `json:"groupsClaim,omitempty"`
	AllowedDomains []string `json:"allowedDomains,omitempty"`
	MatchBy        string   `json:"matchBy,omitempty"`
	ButtonLabel    string   `json:"buttonLabel,omitempty"`
}

// Configured says whether sign-in can start: issuer and client id are set.
func (c Config) Configured() bool { return c.Issuer != "" && c.ClientID != "" }

func (c Config) scopes() []string {
	s := c.Scopes
	if len(s) == 0 {
		s = DefaultScopes
	}
	if !slices.Contains(s, "openid") {
		s = append([]string{"openid"}, s...)
	}
	return s
}

func (c Config) loginClaim() string  { return orDefault(c.LoginClaim, DefaultLoginClaim) }
func (c Config) groupsClaim() string { return orDefault(c.GroupsClaim, DefaultGroupsClaim) }
func (c Config) matchBy() string     { return orDefault(c.MatchBy, MatchLogin) }
func (c Config) label() string       { return orDefault(c.ButtonLabel, "Single sign-on") }

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

// domainAllowed says whether the e-mail's domain is allowed (any when the
// list is empty).
func (c Config) domainAllowed(email string) bool {
	if len(c.AllowedDomains) == 0 {
		return true
	}
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return false
	}
	d := strings.ToLower(email[at+1:])
	for _, a := range c.AllowedDomains {
		if strings.EqualFold(a, d) {
			return true
		}
	}
	return false
}

// OIDCSettings is GET /admin/settings/oidc: never the client secret.
type OIDCSettings struct {
	Issuer          string   `json:"issuer"`
	ClientID        string   `json:"clientId"`
	HasClientSecret bool     `json:"hasClientSecret"`
	Scopes          []string `json:"scopes" doc:"empty = defaultScopes"`
	LoginClaim      string   `json:"loginClaim" doc:"empty = preferred_username"`
	GroupsClaim     string   `json:"groupsClaim" doc:"empty = groups"`
	AllowedDomains  []string `json:"allowedDomains" doc:"e-mail domains allowed to sign in; empty = any"`
	MatchBy         string   `json:"matchBy" enum:"login,email" doc:"how an existing account is found"`
	ButtonLabel     string   `json:"buttonLabel"`
	Configured      bool     `json:"configured" doc:"issuer and clientId are set"`
	RedirectPath    string   `json:"redirectPath" doc:"path of the redirect URI to register at the provider (prefix it with the portal's public URL)"`
	DefaultScopes   []string `json:"defaultScopes"`
}

// OIDCSettingsInput is the body of PUT /admin/settings/oidc (replaces the settings).
type OIDCSettingsInput struct {
	Issuer         string   `json:"issuer" maxLength:"500" doc:"issuer URL (https; http only for loopback hosts); empty = not configured"`
	ClientID       string   `json:"clientId,omitempty" maxLength:"500"`
	ClientSecret   *string  `json:"clientSecret,omitempty" maxLength:"1024" doc:"omit or send ******** to keep the stored secret (only while issuer and clientId stay the same: otherwise 400); empty clears it (public client, PKCE only). Never returned."`
	Scopes         []string `json:"scopes,omitempty" maxItems:"20" doc:"scopes asked for; openid is always added"`
	LoginClaim     string   `json:"loginClaim,omitempty" maxLength:"100"`
	GroupsClaim    string   `json:"groupsClaim,omitempty" maxLength:"100"`
	AllowedDomains []string `json:"allowedDomains,omitempty" maxItems:"100"`
	MatchBy        string   `json:"matchBy,omitempty" enum:"login,email,"`
	ButtonLabel    string   `json:"buttonLabel,omitempty" maxLength:"100"`
}

func (c Config) view() OIDCSettings {
	return OIDCSettings{Issuer: c.Issuer, ClientID: c.ClientID, HasClientSecret: c.ClientSecret != "", Scopes: nonNil(c.Scopes),
		LoginClaim: c.LoginClaim, GroupsClaim: c.GroupsClaim, AllowedDomains: nonNil(c.AllowedDomains), MatchBy: c.matchBy(),
		ButtonLabel: c.ButtonLabel, Configured: c.Configured(), RedirectPath: CallbackPath, DefaultScopes: DefaultScopes}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

var (
	claimRE  = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,100}$`)
	scopeRE  = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]{1,100}$`)
	domainRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)
)

// apply validates in and returns old with the settings replaced.
func (in OIDCSettingsInput) apply(old Config) (Config, error) {
	c := Config{Issuer: strings.TrimSpace(in.Issuer), ClientID: strings.TrimSpace(in.ClientID),
		ClientSecret: old.ClientSecret, LoginClaim: strings.TrimSpace(in.LoginClaim), GroupsClaim: strings.TrimSpace(in.GroupsClaim),
		MatchBy: strings.TrimSpace(in.MatchBy), ButtonLabel: strings.TrimSpace(in.ButtonLabel)}
	keep := in.ClientSecret == nil || *in.ClientSecret == Mask
	if !keep {
		c.ClientSecret = *in.ClientSecret
	}
	if err := checkIssuer(c.Issuer); err != nil {
		return c, err
	}
	if c.Issuer != "" && c.ClientID == "" {
		return c, fault.Validation("clientId", "clientId is required with an issuer")
	}
	for _, s := range in.Scopes {
		if s = strings.TrimSpace(s); s != "" {
			if !scopeRE.MatchString(s) {
				return c, fault.Validation("scopes", "scope %q is not a valid OAuth scope", s)
			}
			c.Scopes = append(c.Scopes, s)
		}
	}
	for field, v := range map[string]string{"loginClaim": c.LoginClaim, "groupsClaim": c.GroupsClaim} {
		if v != "" && !claimRE.MatchString(v) {
			return c, fault.Validation(field, "%s %q is not a claim name", field, v)
		}
	}
	for _, d := range in.AllowedDomains {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if !domainRE.MatchString(d) {
			return c, fault.Validation("allowedDomains", "%q is not a domain name", d)
		}
		c.AllowedDomains = append(c.AllowedDomains, d)
	}
	if keep && old.ClientSecret != "" && (old.Issuer != c.Issuer || old.ClientID != c.ClientID) {
		// the stored secret is never sent to a provider or client it was not entered for
		return c, fault.Validation("clientSecret", "re-enter clientSecret when issuer or clientId changes (or send an empty one to clear it)")
	}
	return c, nil
}

func checkIssuer(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fault.Validation("issuer", "issuer must be an absolute URL such as https://login.example.com/realms/corp")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !loopbackHost(u.Hostname())) {
		return fault.Validation("issuer", "issuer must use https (http only for localhost or 127.0.0.1)")
	}
	return nil
}

func loopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}
