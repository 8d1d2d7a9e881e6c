package backup

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"coreportal/internal/store"
)

func TestNewKey(t *testing.T) {
	if k, err := NewKey(""); k != nil || err != nil {
		t.Fatalf("empty: %v %v", k, err)
	}
	if _, err := NewKey("fifteen chars.."); err == nil {
		t.Fatal("a 15-character key was accepted")
	}
	if k, err := NewKey("sixteen chars..."); k == nil || err != nil {
		t.Fatalf("16 characters: %v", err)
	}
}

func TestAuthenticate(t *testing.T) {
	key, _ := NewKey("correct horse battery staple")
	other, _ := NewKey("another horse battery staple")
	d, prot, err := key.protect()
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{FormatVersion: FormatVersion, Protection: prot}
	raw, _ := json.Marshal(m)
	sig := d.sign(raw)
	edited := bytes.Replace(raw, []byte(`"formatVersion":2`), []byte(`"formatVersion":2 `), 1)
	unknown := *m
	unknown.Protection = &Protection{KDF: "argon2id;t=100", Salt: prot.Salt, KeyCheck: prot.KeyCheck}
	for _, tc := range []struct {
		name     string
		key      *Key
		m        *Manifest
		raw, sig []byte
		verified bool
		why      string
		err      error
	}{
		{"signed under the key", key, m, raw, sig, true, "", nil},
		{"no key", nil, m, raw, sig, false, "CORE_BACKUP_KEY is not set", nil},
		{"another key", other, m, raw, sig, false, "another CORE_BACKUP_KEY", nil},
		{"unsigned archive", key, &Manifest{FormatVersion: 1}, raw, nil, false, "not signed", nil},
		{"unknown derivation", key, &unknown, raw, sig, false, "unknown key derivation", nil},
		{"edited manifest", key, m, edited, sig, false, "", ErrTampered},
		{"signature removed", key, m, raw, nil, false, "", ErrTampered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why, err := tc.key.authenticate(tc.m, tc.raw, tc.sig)
			if !errors.Is(err, tc.err) || (got != nil) != tc.verified || !strings.Contains(why, tc.why) {
				t.Fatalf("verified %v, why %q, err %v", got != nil, why, err)
			}
		})
	}
	sealed, err := d.seal([]byte(`{"settings":{"jwt_secret":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := d.open(sealed); err != nil || !strings.Contains(string(plain), "jwt_secret") {
		t.Fatalf("open: %v %s", err, plain)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := d.open(sealed); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a changed secrets part opened: %v", err)
	}
}

func TestScrubber(t *testing.T) {
	b := newBag()
	settings := b.scrubber("settings", []store.Column{{Name: "key"}, {Name: "value"}, {Name: "updated_at"}})
	if settings([]any{"jwt_secret", "s3cr3t", nil}) || !settings([]any{"install_id", "x", nil}) {
		t.Fatal("settings rows")
	}
	services := b.scrubber("services", []store.Column{{Name: "key"}, {Name: "config"}})
	row := []any{"notifications", `{"host":"smtp","password":"pw","hasPassword":true}`}
	if !services(row) || strings.Contains(row[1].(string), "pw\"") || !strings.Contains(row[1].(string), "smtp") {
		t.Fatalf("services row %v", row)
	}
	users := b.scrubber("users", []store.Column{{Name: "id"}, {Name: "login"}, {Name: "password_hash"}})
	u := []any{"u1", "admin", "$argon2id$hash"}
	if !users(u) || u[2] != nil {
		t.Fatalf("users row %v", u)
	}
	if b.scrubber("nodes", []store.Column{{Name: "id"}}) != nil {
		t.Fatal("a table without secrets is scrubbed")
	}
	want := "services.notifications.password settings.jwt_secret users.password_hash"
	if got := strings.Join(b.names(), " "); got != want || b.Users["u1"] != "$argon2id$hash" || b.Settings["jwt_secret"] != "s3cr3t" {
		t.Fatalf("names %q, bag %+v", got, b)
	}
}
