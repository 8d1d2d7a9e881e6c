package sso

import (
	"testing"
	"time"
)

func TestSafeReturn(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/pages/1?x=y": "/pages/1?x=y", "//evil.example": "/",
		"https://evil.example": "/", "/\\evil": "/", "pages": "/", "/a\r\nb": "/"} {
		if got := safeReturn(in); got != want {
			t.Errorf("safeReturn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestApplySettings(t *testing.T) {
	secret := "s3"
	mask := Mask
	old := Config{Issuer: "https://id.example", ClientID: "portal", ClientSecret: "old"}
	for _, tc := range []struct {
		name   string
		in     OIDCSettingsInput
		secret string
		field  string
	}{
		{"mask keeps", OIDCSettingsInput{Issuer: "https://id.example", ClientID: "portal", ClientSecret: &mask}, "old", ""},
		{"omitted keeps", OIDCSettingsInput{Issuer: "https://id.example", ClientID: "portal"}, "old", ""},
		{"new secret", OIDCSettingsInput{Issuer: "https://id.example", ClientID: "portal", ClientSecret: &secret}, "s3", ""},
		{"kept secret with a new issuer", OIDCSettingsInput{Issuer: "https://other.example", ClientID: "portal"}, "", "clientSecret"},
		{"http issuer", OIDCSettingsInput{Issuer: "http://id.example", ClientID: "portal", ClientSecret: &secret}, "", "issuer"},
		{"loopback http issuer", OIDCSettingsInput{Issuer: "http://localhost:9998/", ClientID: "portal", ClientSecret: &secret}, "s3", ""},
		{"no client", OIDCSettingsInput{Issuer: "https://id.example"}, "", "clientId"},
		{"bad domain", OIDCSettingsInput{Issuer: "https://id.example", ClientID: "portal", AllowedDomains: []string{"not a domain"}}, "", "allowedDomains"},
		{"bad claim", OIDCSettingsInput{Issuer: "https://id.example", ClientID: "portal", LoginClaim: "a b"}, "", "loginClaim"},
	} {
		c, err := tc.in.apply(old)
		if tc.field != "" {
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
			}
			continue
		}
		if err != nil || c.ClientSecret != tc.secret {
			t.Errorf("%s: %v secret %q", tc.name, err, c.ClientSecret)
		}
	}
}

func TestDomainsAndClaims(t *testing.T) {
	c := Config{AllowedDomains: []string{"corp.example"}, GroupsClaim: "roles"}
	if !c.domainAllowed("a@CORP.example") || c.domainAllowed("a@evil.example") || c.domainAllowed("nobody") {
		t.Fatal("domainAllowed")
	}
	id := identityOf(c, "sub1", map[string]any{"preferred_username": "ann", "email": "ann@corp.example", "email_verified": true,
		"roles": []any{"Editors", " ", 3, "Readers"}})
	if id.Login != "ann" || !id.EmailVerified || len(id.Groups) != 2 || id.Groups[1] != "Readers" {
		t.Fatalf("identity %+v", id)
	}
}

func TestFlowCookie(t *testing.T) {
	s := New(nil, nil, nil, nil, []byte("k"), "")
	now := time.Unix(1000, 0)
	s.now = func() time.Time { return now }
	v := s.sealFlow(flow{State: "st", Nonce: "n", Verifier: "v", ReturnTo: "/", Expires: now.Add(flowTTL).Unix()})
	if f, ok := s.openFlow(v); !ok || f.State != "st" {
		t.Fatal("sealed flow not opened")
	}
	if _, ok := s.openFlow(v[:len(v)-2] + "AA"); ok {
		t.Fatal("tampered flow opened")
	}
	now = now.Add(flowTTL + time.Second)
	if _, ok := s.openFlow(v); ok {
		t.Fatal("expired flow opened")
	}
}
