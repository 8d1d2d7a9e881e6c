package applog

import (
	"regexp"
	"strings"
)

// Masked replaces a secret value.
const Masked = "[REDACTED]"

// secretKeys are fragments of attribute or field names whose values are
// secrets: passwords (LDAP bindPassword included), tokens, cookies,
// Authorization headers, API keys, private keys.
var secretKeys = []string{"password", "passwd", "secret", "token", "authorization", "cookie", "apikey", "api_key", "privatekey", "private_key", "credential"}

// SecretKey reports whether a field of this name holds a secret.
func SecretKey(key string) bool {
	k := strings.ToLower(key)
	if strings.HasPrefix(k, "has") { // hasPassword and the like are flags, not secrets
		return false
	}
	for _, s := range secretKeys {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

var (
	// "Bearer <token>" and "Basic <credentials>" anywhere in a text.
	reAuthScheme = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	// Compact JWTs (three base64url parts, the first starting with eyJ).
	reJWT = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`)
	// key=value and key: value pairs whose key names a secret, as in
	// "password=x", "core_token=x", "bindPassword: x", "Cookie: a=b".
	reSecretPair = regexp.MustCompile(`(?i)\b([a-z_]*(?:password|passwd|secret|token|cookie|authorization|apikey|api_key)[a-z_]*)(\s*[=:]\s*)("[^"]*"|[^\s,;&"]+)`)
	reEmail      = regexp.MustCompile(`[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,}`)
)

// RedactText masks secrets and e-mail addresses inside free text: bearer and
// basic credentials, JWTs, key=value pairs naming a secret, and the local
// part of e-mail addresses (j***@example.com keeps the domain for diagnosis).
func RedactText(s string) string {
	if !mayHoldSecret(s) {
		return s
	}
	s = reAuthScheme.ReplaceAllString(s, "$1 "+Masked)
	s = reJWT.ReplaceAllString(s, Masked)
	s = reSecretPair.ReplaceAllString(s, "$1$2"+Masked)
	s = reEmail.ReplaceAllStringFunc(s, MaskEmail)
	return s
}

// hints are lower-case fragments without which none of the patterns can match.
var hints = []string{"@", "bearer", "basic", "eyj", "pass", "secret", "token", "cookie", "authorization", "apikey", "api_key"}

// mayHoldSecret is a cheap test that spares most texts the regular expressions.
func mayHoldSecret(s string) bool {
	if len(s) < 5 {
		return false
	}
	l := strings.ToLower(s)
	for _, h := range hints {
		if strings.Contains(l, h) {
			return true
		}
	}
	return false
}

// MaskEmail keeps the first character of the local part and the domain.
func MaskEmail(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 {
		return Masked
	}
	return addr[:1] + "***" + addr[at:]
}

// RedactValue masks secrets in a decoded JSON-like value: values under secret
// keys are replaced, strings are passed through RedactText.
func RedactValue(v any) any { return walkSecrets(v, RedactText) }

// StripSecrets removes values under secret keys (audit records never keep
// them, not even masked) and leaves other values as they are.
func StripSecrets(v any) any { return walkSecrets(v, nil) }

// walkSecrets copies a decoded JSON-like value with the values under secret
// keys masked and, when text is not nil, every other string passed through it.
func walkSecrets(v any, text func(string) string) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if SecretKey(k) {
				out[k] = Masked
				continue
			}
			out[k] = walkSecrets(x, text)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = walkSecrets(x, text)
		}
		return out
	case string:
		if text != nil {
			return text(t)
		}
	}
	return v
}
