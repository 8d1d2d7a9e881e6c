package backup

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"coreportal/internal/applog"
	"coreportal/internal/auth"
	"coreportal/internal/store"
)

// Secret names as archives and restore reports give them.
const (
	// SecretPasswordHashes: the password hashes of local accounts.
	SecretPasswordHashes = "users.password_hash"
)

// SecretsInfo is the manifest block about secrets. The table parts never
// hold them: settings rows whose key names a secret (the JWT signing secret,
// the survey respondent secret), secret fields of service settings (SMTP
// password, LDAP bind password) and users' password hashes are withheld.
// With a key they travel in the encrypted secrets part; without one they
// are not in the archive at all.
type SecretsInfo struct {
	Withheld  []string `json:"withheld"`
	Encrypted bool     `json:"encrypted"`
	Cipher    string   `json:"cipher,omitempty"`
	Part      string   `json:"part,omitempty"`
	Size      int64    `json:"size,omitempty"`
	SHA256    string   `json:"sha256,omitempty"`
}

// secretBag collects the secrets while the tables are dumped.
type secretBag struct {
	Settings map[string]string            `json:"settings"`
	Services map[string]map[string]string `json:"services"`
	Users    map[string]string            `json:"users"` // user id -> password hash
}

func newBag() *secretBag {
	return &secretBag{Settings: map[string]string{}, Services: map[string]map[string]string{}, Users: map[string]string{}}
}

// names are the withheld secrets, sorted.
func (b *secretBag) names() []string {
	out := []string{}
	for k := range b.Settings {
		out = append(out, "settings."+k)
	}
	for svc, fields := range b.Services {
		for f := range fields {
			out = append(out, "services."+svc+"."+f)
		}
	}
	if len(b.Users) > 0 {
		out = append(out, SecretPasswordHashes)
	}
	sort.Strings(out)
	return out
}

func colIndex(cols []store.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// scrubber returns what takes the secrets out of one row of table before it
// is archived (nil for tables without secrets); it answers false for a row
// left out entirely.
func (b *secretBag) scrubber(table string, cols []store.Column) func(row []any) bool {
	switch table {
	case "settings":
		k, v := colIndex(cols, "key"), colIndex(cols, "value")
		if k < 0 || v < 0 {
			return nil
		}
		return func(row []any) bool {
			key, _ := row[k].(string)
			if !applog.SecretKey(key) {
				return true
			}
			b.Settings[key], _ = row[v].(string)
			return false
		}
	case "services":
		k, c := colIndex(cols, "key"), colIndex(cols, "config")
		if k < 0 || c < 0 {
			return nil
		}
		return func(row []any) bool {
			key, _ := row[k].(string)
			row[c] = b.scrubConfig(key, row[c])
			return true
		}
	case "users":
		id, h := colIndex(cols, "id"), colIndex(cols, "password_hash")
		if id < 0 || h < 0 {
			return nil
		}
		return func(row []any) bool {
			if hash, _ := row[h].(string); hash != "" {
				uid, _ := row[id].(string)
				b.Users[uid] = hash
			}
			row[h] = nil
			return true
		}
	}
	return nil
}

// scrubConfig removes the secret fields of a service's settings object.
func (b *secretBag) scrubConfig(svc string, v any) any {
	raw, ok := v.(string)
	if !ok {
		return v
	}
	var cfg map[string]any
	if json.Unmarshal([]byte(raw), &cfg) != nil {
		return v
	}
	changed := false
	for f, x := range cfg {
		if !applog.SecretKey(f) {
			continue
		}
		changed = true
		delete(cfg, f)
		if s, _ := x.(string); s != "" {
			if b.Services[svc] == nil {
				b.Services[svc] = map[string]string{}
			}
			b.Services[svc][f] = s
		}
	}
	if !changed {
		return v
	}
	out, _ := json.Marshal(cfg)
	return string(out)
}

// restoreSecrets puts the archive's secrets back (bag) or, for each one
// that is not restored, makes the restored data safe: settings secrets get
// a new random value (JWT secret: every session ends; survey respondent
// secret: earlier answers are no longer recognised as the user's), service
// passwords stay empty (SMTP and LDAP need them re-entered), and local
// accounts keep no password hash (nobody can sign in with a password until
// one is set with coreportal user set-password or by an administrator).
func restoreSecrets(ctx context.Context, tx *store.Tx, notRestored []string, bag *secretBag) error {
	now := time.Now().UTC()
	if bag == nil {
		bag = newBag()
	}
	for _, n := range notRestored {
		if k, ok := strings.CutPrefix(n, "settings."); ok {
			bag.Settings[k] = auth.RandomPassword() + auth.RandomPassword()
		}
	}
	for k, v := range bag.Settings {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, k, v, now); err != nil {
			return fmt.Errorf("restore secret setting %s: %w", k, err)
		}
	}
	for svc, fields := range bag.Services {
		if err := restoreServiceSecrets(ctx, tx, svc, fields); err != nil {
			return err
		}
	}
	for id, hash := range bag.Users {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, id); err != nil {
			return fmt.Errorf("restore password hashes: %w", err)
		}
	}
	return nil
}

func restoreServiceSecrets(ctx context.Context, tx *store.Tx, svc string, fields map[string]string) error {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT config FROM services WHERE key = ?`, svc).Scan(&raw)
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("restore secrets of %s: %w", svc, err)
	}
	cfg := map[string]any{}
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
			return fmt.Errorf("restore secrets of %s: %w", svc, err)
		}
	}
	for f, v := range fields {
		cfg[f] = v
	}
	out, _ := json.Marshal(cfg)
	if _, err := tx.ExecContext(ctx, `UPDATE services SET config = ? WHERE key = ?`, string(out), svc); err != nil {
		return fmt.Errorf("restore secrets of %s: %w", svc, err)
	}
	return nil
}

// mergeNames is the sorted union of two name lists.
func mergeNames(a, b []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, n := range append(append([]string{}, a...), b...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
