package wopi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// claims is what an access token carries: one user, one file, whether the
// user may write it, and its end; the user's token version when it was
// minted (a password change or reset, a deactivation or the loss of the
// administrator role ends it, as for sessions) and the credential it was
// minted with, when not a session (an app password or a service token).
type claims struct {
	User     string `json:"u"`
	File     string `json:"f"`
	Library  string `json:"l"`
	Write    bool   `json:"w"`
	Expires  int64  `json:"e"` // unix milliseconds
	Version  int    `json:"v"`
	CredKind string `json:"ck,omitempty"`
	CredID   string `json:"ci,omitempty"`
}

var errToken = errors.New("wopi: invalid or expired access token")

// signer makes and checks access tokens (HMAC-SHA256 over the claims).
type signer struct{ key []byte }

func newSigner(secret string) signer {
	k := sha256.Sum256([]byte("coreportal wopi access token\x00" + secret))
	return signer{key: k[:]}
}

func (s signer) mac(b []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write(b)
	return h.Sum(nil)
}

func (s signer) sign(c claims) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.mac(b))
}

// verify checks a token's signature and end, and that it names fileID.
func (s signer) verify(tok, fileID string, now time.Time) (claims, error) {
	var c claims
	body, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return c, errToken
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	m, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(m, s.mac(b)) || json.Unmarshal(b, &c) != nil {
		return claims{}, errToken
	}
	if now.UnixMilli() >= c.Expires || !strings.EqualFold(c.File, fileID) {
		return claims{}, errToken
	}
	return c, nil
}
