package auth

import (
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"coreportal/internal/fault"
)

// argon2id parameters: OWASP's 7 MiB / 5 passes / 1 lane option, equivalent in
// strength to 19 MiB / 2 passes but with a third of the memory per sign-in,
// which matters when many users sign in at once on a small server.
const (
	argonMemory  = 7 * 1024
	argonTime    = 5
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an argon2id PHC string.
func HashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("unsupported password hash")

// VerifyPassword checks password against a PHC string made by HashPassword.
func VerifyPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var mem uint32
	var iter uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iter, &threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, iter, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified when a login does not exist, so that both cases take
// as long. It is made on first use so that start-up and CLI commands stay cheap.
var dummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("no such user, same work")
	return h
})

// commonPasswords are the 10,000 most common passwords, lower-cased
// (common-passwords.NOTICE says where they come from).
//
//go:embed common-passwords.txt
var commonPasswordsText string

var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	m := make(map[string]struct{}, 10000)
	for _, l := range strings.Split(commonPasswordsText, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			m[l] = struct{}{}
		}
	}
	return m
})

// IsCommonPassword reports whether password (any case) is one of the 10,000
// most common passwords.
func IsCommonPassword(password string) bool {
	_, ok := commonPasswords()[strings.ToLower(password)]
	return ok
}

// CheckPasswordPolicy is the password rule (OWASP ASVS 5.0 6.2): 8 to 256
// characters, not only white space, not one of the 10,000 most common
// passwords, and not equal (ignoring case and surrounding spaces) to any of
// identities: the account's login and e-mail.
func CheckPasswordPolicy(field, password string, identities ...string) error {
	n := utf8.RuneCountInString(password)
	if n < 8 {
		return fault.Validation(field, "password must have at least 8 characters")
	}
	if n > 256 {
		return fault.Validation(field, "password must have at most 256 characters")
	}
	if strings.TrimSpace(password) == "" {
		return fault.Validation(field, "password must not consist of white space only")
	}
	for _, id := range identities {
		if id = strings.TrimSpace(id); id != "" && strings.EqualFold(strings.TrimSpace(password), id) {
			return fault.Validation(field, "password must not be the same as the login or e-mail address")
		}
	}
	if IsCommonPassword(password) {
		return fault.Validation(field, "password is one of the 10,000 most common passwords; choose another")
	}
	return nil
}

// RandomPassword returns a 20-character random password.
func RandomPassword() string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
