package release

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/licence"
	"coreportal/internal/settings"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestNewer(t *testing.T) {
	for _, c := range []struct {
		cand, inst string
		want       bool
	}{
		{"2.0.0", "1.9.9", true},
		{"1.10.0", "1.9.0", true},
		{"1.0.0", "1.0.0", false},
		{"1.0.0", "1.0.1", false},
		{"1.0.0", "1.0.0-rc.1", true},
		{"v2.0.0", "1.0.0", true},
		{"2.0.0", "0.1.0-dev", true},
		{"2.0.0", "not-a-version", true},
		{"garbage", "1.0.0", false},
		{"", "1.0.0", false},
	} {
		if got := Newer(c.cand, c.inst); got != c.want {
			t.Errorf("Newer(%q, %q) = %v", c.cand, c.inst, got)
		}
	}
}

func TestOfferVerify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	body := []byte("the package")
	sum := sha256.Sum256(body)
	sha := hex.EncodeToString(sum[:])
	good := Offer{Version: "2.0.0", Platform: "linux-amd64", SHA256: sha, Signature: hex.EncodeToString(ed25519.Sign(priv, PackageMessage("2.0.0", "linux-amd64", sha)))}
	if err := good.Verify(pub, sum[:]); err != nil {
		t.Fatal(err)
	}
	other := sha256.Sum256([]byte("tampered"))
	cases := map[string]func(o *Offer) []byte{
		"other bytes":       func(o *Offer) []byte { return other[:] },
		"other version":     func(o *Offer) []byte { o.Version = "9.9.9"; return sum[:] },
		"other platform":    func(o *Offer) []byte { o.Platform = "windows-amd64"; return sum[:] },
		"bad signature hex": func(o *Offer) []byte { o.Signature = "zz"; return sum[:] },
		"bad sha hex":       func(o *Offer) []byte { o.SHA256 = "abc"; return sum[:] },
	}
	for name, f := range cases {
		o := good
		got := f(&o)
		if err := o.Verify(pub, got); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestJobs runs the update job life cycle on both databases: blocked starts,
// one active job at a time, claim, forward-only phases, done recording the
// installed release, and a job failed when its runner went silent.
func TestJobs(t *testing.T) {
	vendor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"version": "1.5.0", "link": "https://vendor/r/1.5.0"}})
	}))
	defer vendor.Close()
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		st := settings.New(db)
		lic, err := licence.New(ctx, st, licence.Options{DataDir: t.TempDir(), Channel: "stable", Platform: "linux-amd64"})
		if err != nil {
			t.Fatal(err)
		}
		s := New(db, st, lic, Config{VendorURL: vendor.URL, ReleaseFile: filepath.Join(t.TempDir(), "RELEASE"), BuildVersion: "1.4.0", Channel: "stable", Platform: "linux-amd64"})
		reason := func(err error) any {
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeUpdateBlock {
				t.Fatalf("not UPDATE_BLOCKED: %v", err)
			}
			return fe.Details["reason"]
		}
		if _, err := s.Start(ctx, ""); reason(err) != BlockRunnerOffline {
			t.Fatal(err)
		}
		if w, err := s.Claim(ctx); err != nil || w != nil {
			t.Fatalf("claim with nothing queued: %v %v", w, err)
		}
		j, err := s.Start(ctx, "")
		if err != nil || j.Status != StatusQueued || j.FromVersion != "1.4.0" || j.ToVersion != "1.5.0" {
			t.Fatalf("start: %+v %v", j, err)
		}
		if _, err := s.Start(ctx, ""); reason(err) != BlockInProgress {
			t.Fatal(err)
		}
		if err := s.jobs.insert(ctx, &UpdateJob{ID: "00000000-0000-0000-0000-000000000001", Status: StatusQueued, Phase: PhaseQueued, CreatedAt: time.Now()}, ""); !store.IsUnique(err) {
			t.Fatalf("second active job: %v", err)
		}
		w, err := s.Claim(ctx)
		if err != nil || w == nil || w.UpdateJob.ID != j.ID || w.UpdateJob.Phase != PhaseEntitle || w.EntitleURL != vendor.URL+"/api/v1/entitle" || len(w.InstallBinding) != 64 {
			t.Fatalf("claim: %+v %v", w, err)
		}
		if w2, _ := s.Claim(ctx); w2 != nil {
			t.Fatal("a running job claimed twice")
		}
		if _, err := s.Report(ctx, j.ID, UpdateProgress{Phase: PhaseApply}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []struct {
			phase string
			code  fault.Code
		}{{PhaseDownload, fault.CodeConflict}, {PhaseQueued, fault.CodeValidation}, {"bogus", fault.CodeValidation}} {
			if _, err := s.Report(ctx, j.ID, UpdateProgress{Phase: bad.phase}); !fault.Is(err, bad.code) {
				t.Fatalf("phase %s: %v", bad.phase, err)
			}
		}
		done, err := s.Report(ctx, j.ID, UpdateProgress{Phase: PhaseDone})
		if err != nil || done.Status != StatusSucceeded || done.CompletedAt == nil {
			t.Fatalf("done: %+v %v", done, err)
		}
		if _, err := s.Report(ctx, j.ID, UpdateProgress{Phase: PhaseFailed}); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("report on an ended job: %v", err)
		}
		if v, src, _ := s.Installed(ctx); v != "1.5.0" || src != "database" {
			t.Fatalf("installed %s %s", v, src)
		}
		if _, err := s.Start(ctx, ""); reason(err) != BlockNoNewerVersion {
			t.Fatal(err)
		}

		// a job whose runner went silent is failed by the next check
		if err := s.settings.Set(ctx, keyVersion, "1.0.0"); err != nil {
			t.Fatal(err)
		}
		j2, err := s.Start(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		s.now = func() time.Time { return time.Now().Add(10 * time.Minute) }
		res, err := s.Check(ctx)
		if err != nil || res.UpgradeBlockedReason != BlockRunnerOffline {
			t.Fatalf("check: %+v %v", res, err)
		}
		if got, _ := s.JobByID(ctx, j2.ID); got.Status != StatusFailed || got.Message == "" {
			t.Fatalf("stale job %+v", got)
		}
		if _, err := s.JobByID(ctx, "nope"); !fault.Is(err, fault.CodeValidation) {
			t.Fatal(err)
		}

		// the RELEASE file wins over the database
		if err := os.WriteFile(s.cfg.ReleaseFile, []byte("3.0.0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetInstalled(ctx, "3.1.0"); !fault.Is(err, fault.CodeConflict) {
			t.Fatal(err)
		}
		if rs, _ := s.ReleaseSettings(ctx); rs.InstalledReleaseVersion != "3.0.0" || rs.CanEditInstalledVersion || rs.LastKnownLatestVersion != "1.5.0" {
			t.Fatalf("settings %+v", rs)
		}
	})
}
