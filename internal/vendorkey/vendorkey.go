// Package vendorkey holds the vendor's built-in Ed25519 public key, which
// checks licence keys and update packages, and parses configured ones.
package vendorkey

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
)

// Builtin is the vendor's public key (base64). The private key stays with
// the vendor; CORE_LICENSE_PUBLIC_KEY and CORE_UPDATE_PUBLIC_KEY replace it.
const Builtin = "QZ9isJabet/7x0jMjuwbYKqPdCcvtDTJBkT8zt/uVhY="

// Parse decodes a base64 (standard or URL, padded or not) Ed25519 public
// key; empty means the built-in key.
func Parse(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = Builtin
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == ed25519.PublicKeySize {
			return ed25519.PublicKey(b), nil
		}
	}
	return nil, errors.New("not a base64 Ed25519 public key of 32 bytes")
}
