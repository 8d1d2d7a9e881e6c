package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Headers of a delivery.
const (
	HeaderSignature = "X-Core-Signature" // sha256=<hex HMAC-SHA256 of the body with the receiver's secret>
	HeaderDelivery  = "X-Core-Delivery"  // delivery id, the same on every retry of one event
	HeaderEvent     = "X-Core-Event"     // event name
	HeaderAttempt   = "X-Core-Attempt"   // 1 on the first try
	HeaderTimestamp = "X-Core-Timestamp" // Unix seconds of this attempt (informative, not signed)
	sigPrefix       = "sha256="
)

// Sign returns the value of X-Core-Signature for body.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return sigPrefix + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether header is the signature of body under secret (what a
// receiver does; constant time).
func Verify(secret string, body []byte, header string) bool {
	if !strings.HasPrefix(header, sigPrefix) {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, sigPrefix))
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
