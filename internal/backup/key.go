package backup

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// MinKeyLength is the shortest CORE_BACKUP_KEY accepted (characters).
const MinKeyLength = 16

// kdfName names the one key derivation archives use: argon2id of the
// passphrase and the archive's random 16-byte salt (1 pass, 64 MiB, 4
// lanes), then HKDF-SHA256 for the three keys (secrets, MAC, key check).
// Archives naming another derivation are treated as unverifiable, so an
// edited manifest cannot ask for an expensive one.
const kdfName = "argon2id;t=1;m=65536;p=4+hkdf-sha256"

// cipherName is the AEAD of the secrets part.
const cipherName = "XChaCha20-Poly1305"

// sigPart is the tar entry after manifest.json holding its MAC.
const sigPart = "manifest.sig"

// secretsPart is the tar entry holding the encrypted secrets.
const secretsPart = "secrets.enc"

// Key is the operator's backup key (CORE_BACKUP_KEY): a passphrase of at
// least 16 characters from which each archive derives its own keys.
type Key struct{ pass []byte }

// NewKey returns the key of a passphrase; nil (no key) for "".
func NewKey(passphrase string) (*Key, error) {
	if passphrase == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(passphrase) < MinKeyLength {
		return nil, fmt.Errorf("CORE_BACKUP_KEY must be at least %d characters", MinKeyLength)
	}
	return &Key{pass: []byte(passphrase)}, nil
}

// Protection is the manifest block of an archive written with a key.
type Protection struct {
	KDF      string `json:"kdf"`
	Salt     string `json:"salt" doc:"base64"`
	KeyCheck string `json:"keyCheck" doc:"tells the key the archive was written with from another one"`
	MAC      string `json:"mac" doc:"HMAC-SHA256 of manifest.json, stored in manifest.sig"`
}

// derived are the keys of one archive.
type derived struct {
	enc, mac []byte
	check    string
}

func (k *Key) derive(salt []byte) (derived, error) {
	master := argon2.IDKey(k.pass, salt, 1, 64*1024, 4, 32)
	var d derived
	var err error
	if d.enc, err = hkdf.Key(sha256.New, master, salt, "coreportal backup secrets", chacha20poly1305.KeySize); err != nil {
		return d, fmt.Errorf("derive backup key: %w", err)
	}
	if d.mac, err = hkdf.Key(sha256.New, master, salt, "coreportal backup manifest mac", 32); err != nil {
		return d, fmt.Errorf("derive backup key: %w", err)
	}
	chk, err := hkdf.Key(sha256.New, master, salt, "coreportal backup key check", 16)
	if err != nil {
		return d, fmt.Errorf("derive backup key: %w", err)
	}
	d.check = hex.EncodeToString(chk)
	return d, nil
}

// protect derives the keys of a new archive and its manifest block.
func (k *Key) protect() (derived, *Protection, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return derived{}, nil, fmt.Errorf("backup salt: %w", err)
	}
	d, err := k.derive(salt)
	if err != nil {
		return derived{}, nil, err
	}
	return d, &Protection{KDF: kdfName, Salt: base64.StdEncoding.EncodeToString(salt), KeyCheck: d.check, MAC: "HMAC-SHA256"}, nil
}

// sign is the content of manifest.sig.
func (d derived) sign(manifest []byte) []byte {
	m := hmac.New(sha256.New, d.mac)
	m.Write(manifest)
	raw, _ := json.Marshal(map[string]string{"alg": "HMAC-SHA256", "mac": hex.EncodeToString(m.Sum(nil))})
	return raw
}

func (d derived) seal(plain []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(d.enc)
	if err != nil {
		return nil, fmt.Errorf("backup cipher: %w", err)
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("backup nonce: %w", err)
	}
	return aead.Seal(nonce, nonce, plain, []byte(secretsPart)), nil
}

func (d derived) open(sealed []byte) ([]byte, error) {
	aead, err := chacha20poly1305.NewX(d.enc)
	if err != nil {
		return nil, fmt.Errorf("backup cipher: %w", err)
	}
	if len(sealed) < aead.NonceSize() {
		return nil, corrupt("the secrets part is truncated")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(secretsPart))
	if err != nil {
		return nil, corrupt("the secrets part does not decrypt")
	}
	return plain, nil
}

// ErrTampered marks an archive whose manifest signature does not match
// under the key it names: it was changed after it was written.
var ErrTampered = errors.New("the archive was changed after it was written: its manifest signature does not match CORE_BACKUP_KEY; it is refused")

// ErrUnverified marks an archive whose manifest cannot be checked; the
// restore refuses it unless told to accept an unverified archive.
var ErrUnverified = errors.New("the archive cannot be verified")

// authenticate checks the manifest signature with k. It answers the
// archive's keys when the manifest is signed under k, ("", nil) when it is,
// why not when the archive cannot be checked (no key, no signature, another
// key), and ErrTampered when the key is k's but the signature does not match.
func (k *Key) authenticate(m *Manifest, raw, sig []byte) (*derived, string, error) {
	switch {
	case k == nil:
		return nil, "CORE_BACKUP_KEY is not set, so its signature cannot be checked", nil
	case m.Protection == nil:
		return nil, "it was written without CORE_BACKUP_KEY and is not signed", nil
	case m.Protection.KDF != kdfName:
		return nil, "it names an unknown key derivation", nil
	}
	salt, err := base64.StdEncoding.DecodeString(m.Protection.Salt)
	if err != nil || len(salt) != 16 {
		return nil, "its salt is malformed", nil
	}
	d, err := k.derive(salt)
	if err != nil {
		return nil, "", err
	}
	if !hmac.Equal([]byte(d.check), []byte(m.Protection.KeyCheck)) {
		return nil, "it was written under another CORE_BACKUP_KEY", nil
	}
	if sig == nil || !hmac.Equal(sig, d.sign(raw)) {
		return nil, "", ErrTampered
	}
	return &d, "", nil
}
