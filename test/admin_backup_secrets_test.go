package test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
	"coreportal/test/kit"
)

// part is one tar entry of an archive.
type part struct {
	hdr  *tar.Header
	body []byte
}

func readArchive(t *testing.T, path string) []part {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []part
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out = append(out, part{hdr: h, body: b})
	}
}

func writeArchive(t *testing.T, parts []part) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range parts {
		h := *p.hdr
		h.Size = int64(len(p.body))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write(p.body)
	}
	_ = tw.Close()
	path := filepath.Join(t.TempDir(), "edited.tar")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// plainText is the archive's bytes with every gzip part decompressed.
func plainText(t *testing.T, parts []part) []byte {
	t.Helper()
	var all bytes.Buffer
	for _, p := range parts {
		all.Write(p.body)
		if strings.HasSuffix(p.hdr.Name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(p.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(zr)
			all.Write(b)
		}
	}
	return all.Bytes()
}

// secretSetting reads a settings row of the server's database.
func secretSetting(t *testing.T, s *kit.Server, key string) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, s.DBURL, filepath.Join(s.DataDir, "core.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v string
	if err := db.Q(ctx).QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v); err != nil {
		t.Fatalf("setting %s: %v", key, err)
	}
	return v
}

// makeAdmin edits the users part of an archive: login becomes an
// administrator; the part's SHA-256 and size in the manifest are recomputed.
func makeAdmin(t *testing.T, parts []part, login string) []part {
	t.Helper()
	out := append([]part(nil), parts...)
	var sum, size string
	for i, p := range out {
		if p.hdr.Name != "db/users.jsonl.gz" {
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(p.body))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		lines := strings.Split(strings.TrimRight(string(plain), "\n"), "\n")
		var hdr struct{ Columns []struct{ Name string } }
		_ = json.Unmarshal([]byte(lines[0]), &hdr)
		col := map[string]int{}
		for i, c := range hdr.Columns {
			col[c.Name] = i
		}
		edited := false
		for j := 1; j < len(lines); j++ {
			var row []any
			_ = json.Unmarshal([]byte(lines[j]), &row)
			if row[col["login"]] == login {
				row[col["is_core_admin"]] = true
				b, _ := json.Marshal(row)
				lines[j], edited = string(b), true
			}
		}
		if !edited {
			t.Fatalf("no user %s in the archive", login)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write([]byte(strings.Join(lines, "\n") + "\n"))
		_ = zw.Close()
		h := sha256.Sum256(gz.Bytes())
		out[i] = part{hdr: p.hdr, body: gz.Bytes()}
		sum, size = hex.EncodeToString(h[:]), strings.TrimSpace(string(must(json.Marshal(gz.Len()))))
	}
	for i, p := range out {
		if p.hdr.Name != "manifest.json" {
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(p.body, &m)
		for _, tp := range m["tables"].([]any) {
			if tb := tp.(map[string]any); tb["name"] == "users" {
				tb["sha256"], tb["size"] = sum, json.Number(size)
			}
		}
		b, _ := json.MarshalIndent(m, "", " ")
		out[i] = part{hdr: p.hdr, body: b}
	}
	return out
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func without(parts []part, name string) []part {
	var out []part
	for _, p := range parts {
		if p.hdr.Name != name {
			out = append(out, p)
		}
	}
	return out
}

// emptyTarget is a database and data folder that nothing ran on.
func emptyTarget(t *testing.T, s *kit.Server) (string, string) {
	if s.DBURL == "" {
		return "", t.TempDir()
	}
	return storetest.FreshPostgresDB(t), t.TempDir()
}

const (
	smtpSecret = "smtp-pass-zebra-7781"
	ldapSecret = "ldap-pass-okapi-5532"
)

// seedSecrets stores an SMTP and an LDAP password and a second user.
func seedSecrets(t *testing.T, s *kit.Server) {
	t.Helper()
	adm := s.Admin(t)
	adm.Do(t, "PUT", "/admin/settings/smtp", map[string]any{"host": "smtp.example.com", "port": 25, "user": "mailer", "password": smtpSecret, "fromEmail": "portal@example.com"}).Expect(t, 200)
	adm.Do(t, "PUT", "/admin/settings/ldap", map[string]any{"url": "ldap://127.0.0.1:3899", "baseDn": "dc=example,dc=org",
		"bindDn": "cn=admin,dc=example,dc=org", "bindPassword": ldapSecret}).Expect(t, 200)
	s.CreateUser(t, "climber", false)
	mkNode(t, adm, "", "secret-era")
}

func backupNow(t *testing.T, adm *kit.Client, catalogue string) (map[string]any, string) {
	t.Helper()
	b := adm.Do(t, "POST", "/admin/backups", nil).Expect(t, 202).Map(t)
	rec := waitBackup(t, adm, b["id"].(string))
	if rec["status"] != "succeeded" {
		t.Fatalf("backup %v", rec)
	}
	return rec, filepath.Join(catalogue, rec["fileName"].(string))
}
