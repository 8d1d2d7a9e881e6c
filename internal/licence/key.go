package licence

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MaxKeyLength bounds a licence key (payload and signature, encoded).
const MaxKeyLength = 16 << 10

// Payload is the signed content of a licence key (CONTRACT.md, "Licence key").
type Payload struct {
	LicenseID      string    `json:"licenseId"`
	Customer       string    `json:"customer"`
	ExpiresAt      time.Time `json:"expiresAt"`
	InstallBinding string    `json:"installBinding"`
	Channel        string    `json:"channel"`
	Platform       string    `json:"platform"`
	Modules        []string  `json:"modules"`
}

// Reasons a key is refused; KeyError.Reason carries one of them.
const (
	ReasonFormat    = "format"
	ReasonSignature = "signature"
	ReasonExpired   = "expired"
	ReasonBinding   = "installBinding"
	ReasonChannel   = "channel"
	ReasonPlatform  = "platform"
)

// KeyError says why a key is refused.
type KeyError struct {
	Reason  string
	Message string
}

func (e *KeyError) Error() string { return e.Message }

func keyErr(reason, format string, args ...any) *KeyError {
	return &KeyError{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// KeyText returns the key of a key file's content: the first non-empty line
// that does not start with '#'. A bare key is returned as it is.
func KeyText(content string) string {
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return line
	}
	return ""
}

func decodeB64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// Parse checks the key's form and signature and returns its payload. It does
// not check expiry or binding (see Payload.Check).
func Parse(key string, pub ed25519.PublicKey) (*Payload, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, keyErr(ReasonFormat, "the licence key is empty")
	}
	if len(key) > MaxKeyLength {
		return nil, keyErr(ReasonFormat, "the licence key is longer than %d characters", MaxKeyLength)
	}
	p64, s64, ok := strings.Cut(key, ".")
	if !ok || p64 == "" || s64 == "" || strings.Contains(s64, ".") {
		return nil, keyErr(ReasonFormat, "the licence key is not of the form base64url(payload).base64url(signature)")
	}
	payload, err := decodeB64URL(p64)
	if err != nil {
		return nil, keyErr(ReasonFormat, "the payload of the licence key is not base64url")
	}
	sig, err := decodeB64URL(s64)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, keyErr(ReasonFormat, "the signature of the licence key is not a base64url Ed25519 signature")
	}
	if !ed25519.Verify(pub, payload, sig) {
		return nil, keyErr(ReasonSignature, "the signature of the licence key does not match the vendor's public key")
	}
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&p); err != nil {
		return nil, keyErr(ReasonFormat, "the payload of the licence key is not valid JSON: %v", err)
	}
	if p.LicenseID == "" || p.ExpiresAt.IsZero() || p.InstallBinding == "" {
		return nil, keyErr(ReasonFormat, "the licence key lacks licenseId, expiresAt or installBinding")
	}
	if p.Modules == nil {
		p.Modules = []string{}
	}
	return &p, nil
}

// Install is what a key is checked against.
type Install struct {
	ID       string
	Channel  string
	Platform string
}

// Binding is the hex SHA-256 of the install id, sent to the vendor.
func (in Install) Binding() string {
	sum := sha256.Sum256([]byte(in.ID))
	return hex.EncodeToString(sum[:])
}

// Check verifies expiry at now, install binding ("*" = any install), channel
// and platform (empty or "*" = any).
func (p *Payload) Check(in Install, now time.Time) error {
	if !now.Before(p.ExpiresAt) {
		return keyErr(ReasonExpired, "the licence key expired at %s", p.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if p.InstallBinding != "*" && !strings.EqualFold(p.InstallBinding, in.Binding()) {
		return keyErr(ReasonBinding, "the licence key is bound to another installation (installBinding %s, this installation is %s)", p.InstallBinding, in.Binding())
	}
	if p.Channel != "" && p.Channel != "*" && p.Channel != in.Channel {
		return keyErr(ReasonChannel, "the licence key is for channel %q, this installation uses %q", p.Channel, in.Channel)
	}
	if p.Platform != "" && p.Platform != "*" && p.Platform != in.Platform {
		return keyErr(ReasonPlatform, "the licence key is for platform %q, this installation runs on %q", p.Platform, in.Platform)
	}
	return nil
}

// Sign builds a key from a payload (vendor tooling and tests).
func Sign(p Payload, priv ed25519.PrivateKey) (string, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode licence payload: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw) + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, raw)), nil
}

// Entitles reports whether patterns grant moduleKey: "*" grants everything,
// "vendor.helpdesk.*" grants vendor.helpdesk and every key below it, other
// patterns grant exactly their key (case-insensitive).
func Entitles(patterns []string, moduleKey string) bool {
	key := strings.ToLower(strings.TrimSpace(moduleKey))
	if key == "" {
		return false
	}
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "*":
			return true
		case strings.HasSuffix(p, ".*"):
			base := strings.TrimSuffix(p, ".*")
			if key == base || strings.HasPrefix(key, base+".") {
				return true
			}
		case p == key:
			return true
		}
	}
	return false
}
