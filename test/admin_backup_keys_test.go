package test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// An archive written with CORE_BACKUP_KEY holds no secret in clear, is
// signed (an archive edited by hand, sums recomputed, is refused), restores
// everything with the key, and everything but its secrets without it.
func TestBackupSecretsWithKey(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		seedSecrets(t, s)
		st := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
		jwt, survey := secretSetting(t, s, "jwt_secret"), secretSetting(t, s, "surveys_respondent_secret")
		rec, archive := backupNow(t, adm, st["dir"].(string))
		parts := readArchive(t, archive)
		text := plainText(t, parts)
		for _, secret := range []string{smtpSecret, ldapSecret, jwt, survey, "$argon2id$"} {
			if bytes.Contains(text, []byte(secret)) {
				t.Fatalf("the archive holds %q in clear", secret)
			}
		}
		if d := rec["details"].(map[string]any); d["signed"] != true || d["secretsEncrypted"] != true || st["keyConfigured"] != true {
			t.Fatalf("backup details %v, settings %v", d, st)
		}

		t.Run("an archive edited by hand is refused", func(t *testing.T) {
			edited := makeAdmin(t, parts, "climber")
			for _, file := range []string{writeArchive(t, edited), writeArchive(t, without(edited, "manifest.sig"))} {
				out, err := restoreCLI(t, s.DBURL, s.DataDir, file)
				if err == nil || !strings.Contains(out, "the archive was changed after it was written") {
					t.Fatalf("edited archive: %v %s", err, out)
				}
			}
			climber := s.Login(t, "climber", "password-climber")
			climber.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 403, "FORBIDDEN")
		})

		t.Run("a part that appears twice is refused", func(t *testing.T) {
			// an edited copy of the users part placed before the signed one,
			// manifest and signature untouched
			var dup []part
			for _, p := range parts {
				if p.hdr.Name == "db/users.jsonl.gz" {
					for _, e := range makeAdmin(t, parts, "climber") {
						if e.hdr.Name == p.hdr.Name {
							dup = append(dup, e)
						}
					}
				}
				dup = append(dup, p)
			}
			dbURL, dir := emptyTarget(t, s)
			out, err := restoreCLIWith(t, dbURL, dir, writeArchive(t, dup), nil, "CORE_BACKUP_KEY="+backupKey)
			if err == nil || !strings.Contains(out, "db/users.jsonl.gz appears twice") {
				t.Fatalf("an archive with a repeated part was not refused: %v %s", err, out)
			}
		})

		t.Run("restore without the key", func(t *testing.T) {
			dbURL, dir := emptyTarget(t, s)
			out, err := restoreCLIWith(t, dbURL, dir, archive, nil)
			if err == nil || !strings.Contains(out, "cannot be verified") || !strings.Contains(out, "CORE_BACKUP_KEY is not set") {
				t.Fatalf("an unverifiable archive was not refused: %v %s", err, out)
			}
			out, err = restoreCLIWith(t, dbURL, dir, archive, []string{"--accept-unverified"})
			if err != nil {
				t.Fatalf("restore: %v %s", err, out)
			}
			for _, want := range []string{"signature: NOT verified", "secrets NOT restored", "settings.jwt_secret", "settings.surveys_respondent_secret",
				"services.notifications.password", "services.ad-sync.bindPassword", "users.password_hash", "administrators in the archive: admin"} {
				if !strings.Contains(out, want) {
					t.Fatalf("restore output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "bootstrap administrator created") || strings.Contains(out, "password=") {
				t.Fatalf("the restore printed a bootstrap password:\n%s", out)
			}
			// nobody signs in with a password until one is set
			setPassword(t, dbURL, dir, "admin", "Fresh-Passw0rd-After-Restore")
			other := kit.StartWith(t, dbURL, dir, "serve")
			if r := other.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": "climber", "password": "password-climber"}); r.Status != 401 {
				t.Fatalf("a password hash came back without the key: %d %s", r.Status, r.Raw)
			}
			oa := other.Login(t, "admin", "Fresh-Passw0rd-After-Restore")
			if nodes := oa.Do(t, "GET", "/nodes", nil).Expect(t, 200); !strings.Contains(string(nodes.Raw), "secret-era") {
				t.Fatalf("the data was not restored: %s", nodes.Raw)
			}
			if m := oa.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t); m["hasPassword"] != false || m["host"] != "smtp.example.com" {
				t.Fatalf("smtp after a restore without the key %v", m)
			}
			if m := oa.Do(t, "GET", "/admin/settings/ldap", nil).Expect(t, 200).Map(t); m["hasPassword"] != false {
				t.Fatalf("ldap after a restore without the key %v", m)
			}
			if secretSetting(t, other, "jwt_secret") == jwt {
				t.Fatal("the JWT secret came back without the key")
			}
		})

		t.Run("restore with the key", func(t *testing.T) {
			dbURL, dir := emptyTarget(t, s)
			out, err := restoreCLIWith(t, dbURL, dir, archive, nil, "CORE_BACKUP_KEY="+backupKey)
			if err != nil || !strings.Contains(out, "signature: verified") || strings.Contains(out, "NOT restored") || !strings.Contains(out, "administrators in the archive: admin") {
				t.Fatalf("restore with the key: %v\n%s", err, out)
			}
			other := kit.StartWith(t, dbURL, dir, "serve")
			oa := other.Login(t, "admin", kit.AdminPassword)
			if m := oa.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t); m["hasPassword"] != true {
				t.Fatalf("smtp after a restore with the key %v", m)
			}
			if secretSetting(t, other, "jwt_secret") != jwt || secretSetting(t, other, "surveys_respondent_secret") != survey {
				t.Fatal("the secrets did not come back with the key")
			}
		})
	}, "CORE_BACKUP_KEY="+backupKey)
}

// Without CORE_BACKUP_KEY the secrets are left out of the archive (the
// record says so) and a restore must accept an unverified archive.
func TestBackupWithoutKey(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		seedSecrets(t, s)
		jwt := secretSetting(t, s, "jwt_secret")
		catalogue := t.TempDir()
		adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": catalogue, "retentionCount": 7, "retentionDays": 30}).Expect(t, 200)
		rec, archive := backupNow(t, adm, catalogue)
		d := rec["details"].(map[string]any)
		if d["signed"] != false || !strings.Contains(fmt.Sprint(d["secretsOmitted"]), "settings.jwt_secret") || d["warning"] == nil {
			t.Fatalf("backup details %v", d)
		}
		text := plainText(t, readArchive(t, archive))
		for _, secret := range []string{smtpSecret, ldapSecret, jwt, "$argon2id$"} {
			if bytes.Contains(text, []byte(secret)) {
				t.Fatalf("the archive holds %q in clear", secret)
			}
		}
		rs := adm.Do(t, "POST", "/admin/backups/"+rec["id"].(string)+"/restore", nil).Expect(t, 202).Map(t)
		if r := waitBackup(t, adm, rs["id"].(string)); r["status"] != "failed" || !strings.Contains(fmt.Sprint(r["error"]), "cannot be verified") {
			t.Fatalf("an unsigned archive was restored without acceptUnverified: %v", r)
		}
		rs = adm.Do(t, "POST", "/admin/backups/"+rec["id"].(string)+"/restore", map[string]any{"acceptUnverified": true}).Expect(t, 202).Map(t)
		r := waitBackup(t, adm, rs["id"].(string))
		rd, _ := r["details"].(map[string]any)
		if r["status"] != "succeeded" || rd["verified"] != false || rd["notes"] == nil || !strings.Contains(fmt.Sprint(rd["administrators"]), "admin") {
			t.Fatalf("restore %v", r)
		}
		for _, want := range []string{"settings.jwt_secret", "services.notifications.password", "services.ad-sync.bindPassword", "users.password_hash"} {
			if !strings.Contains(fmt.Sprint(rd["secretsNotRestored"]), want) {
				t.Fatalf("secretsNotRestored lacks %s: %v", want, rd)
			}
		}
		if m := adm.Do(t, "GET", "/admin/settings/smtp", nil).Expect(t, 200).Map(t); m["hasPassword"] != false {
			t.Fatalf("smtp %v", m)
		}
	})
}

// The data folder, the database files, the blobs and the archives are
// readable by the service's account only, even under umask 0.
func TestBackupPrivateFiles(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			_ = os.Chmod(dir, 0o755)
			s := kit.StartProcess(t, "/bin/sh", b.DatabaseURL(t), dir, []string{"-c", `umask 0; exec "$0" serve`, kit.Binary(t)}, "CORE_BACKUP_KEY="+backupKey)
			f := newListFixture(t, s, "private")
			f.create(t, f.admin, map[string]any{"title": "with a file"})
			f.admin.Upload(t, "POST", f.path("/items/1/attachments"), "file", "a.txt", []byte("private bytes"), nil).Expect(t, 201)
			st := f.admin.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
			_, archive := backupNow(t, f.admin, st["dir"].(string))
			if s.DBURL == "" {
				for _, name := range []string{"core.db", "core.db-wal", "core.db-shm"} {
					if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
			}
			files := 0
			_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				info, _ := e.Info()
				want := os.FileMode(0o600)
				if e.IsDir() {
					want = 0o700
				}
				if info.Mode().Perm() != want {
					t.Errorf("%s: %v, want %v", p, info.Mode().Perm(), want)
				}
				files++
				return nil
			})
			if info, err := os.Stat(archive); err != nil || info.Mode().Perm() != 0o600 || !strings.HasPrefix(archive, dir) || files < 5 {
				t.Fatalf("archive %s: %v %v (%d entries)", archive, info.Mode(), err, files)
			}
		})
	}
}

// A relative data folder gives an absolute catalogue inside it (not
// data/data/backups), shown as such; new installations back up daily and
// keep 7 copies.
func TestBackupCatalogueDefaults(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			abs := t.TempDir()
			cwd, _ := os.Getwd()
			rel, err := filepath.Rel(cwd, abs)
			if err != nil || filepath.IsAbs(rel) {
				t.Fatalf("relative path: %q %v", rel, err)
			}
			s := kit.StartProcess(t, kit.Binary(t), b.DatabaseURL(t), abs, []string{"serve"}, "CORE_DATA_DIR="+rel)
			adm := s.Admin(t)
			st := adm.Do(t, "GET", "/admin/settings/backup", nil).Expect(t, 200).Map(t)
			want := filepath.Join(abs, "backups")
			if st["dir"] != want || st["path"] != want || st["retentionCount"] != float64(7) {
				t.Fatalf("catalogue %v, want %s", st, want)
			}
			if _, archive := backupNow(t, adm, want); !strings.HasPrefix(archive, want) {
				t.Fatalf("archive %s", archive)
			}
			// the settings go back as they were read
			adm.Do(t, "PUT", "/admin/settings/backup", map[string]any{"path": st["path"], "retentionCount": 7, "retentionDays": 30}).Expect(t, 200)
			var list []map[string]any
			adm.Do(t, "GET", "/services", nil).Expect(t, 200).Into(t, &list)
			for _, svc := range list {
				if svc["key"] == "core-backup" {
					if svc["isEnabled"] != true || svc["cronEnabled"] != true || svc["cronExpression"] != "0 1 * * *" || svc["nextRunAt"] == nil {
						t.Fatalf("core-backup on a new installation: %v", svc)
					}
					adm.Do(t, "PATCH", "/services/core-backup", map[string]any{"isEnabled": false}).Expect(t, 200)
					return
				}
			}
			t.Fatal("no core-backup service")
		})
	}
}

// setPassword runs `coreportal user set-password`.
func setPassword(t *testing.T, dbURL, dataDir, login, password string) {
	t.Helper()
	cmd := exec.Command(kit.Binary(t), "user", "set-password", "--login", login, "--password", password)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "CORE_DATA_DIR="+dataDir, "CORE_LOG_LEVEL=warn")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("set-password: %v %s", err, out)
	}
}
