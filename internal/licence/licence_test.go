package licence

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/settings"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestTrial(t *testing.T) {
	db := storetest.OpenSQLite(t)
	st := settings.New(db)
	ctx := context.Background()
	first := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.Set(ctx, "first_start_at", first.Format(time.RFC3339)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		now   time.Time
		mode  string
		valid bool
		days  int
	}{
		{"first day", first.Add(time.Hour), "trial", true, 30},
		{"half way", first.Add(15 * 24 * time.Hour), "trial", true, 15},
		{"last hour", first.Add(30*24*time.Hour - time.Hour), "trial", true, 1},
		{"expired", first.Add(30 * 24 * time.Hour), "expired", false, 0},
		{"long expired", first.Add(400 * 24 * time.Hour), "expired", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Service{settings: st, opt: Options{DataDir: t.TempDir(), PublicKey: testPub}, now: func() time.Time { return c.now }}
			got, err := s.Refresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Mode != c.mode || got.Valid != c.valid || got.DaysRemaining != c.days || s.Writable() != c.valid {
				t.Fatalf("got %+v", got)
			}
			if !got.ExpiresAt.Equal(first.Add(30 * 24 * time.Hour)) {
				t.Fatalf("expiresAt %v", got.ExpiresAt)
			}
			if s.Entitled("vendor.helpdesk") != c.valid {
				t.Fatalf("trial entitlement while valid=%v", c.valid)
			}
		})
	}
}

var testPub, testPriv, _ = ed25519.GenerateKey(rand.Reader)

func sign(t testing.TB, p Payload) string {
	t.Helper()
	k, err := Sign(p, testPriv)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestActivate runs activation on both databases: every refusal changes
// nothing; a good key is stored in the file and the database, and a second
// instance on the same database learns of it over the bus.
func TestActivate(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		b := bus.NewMemory()
		dir := t.TempDir()
		opt := Options{DataDir: dir, PublicKey: testPub, Channel: "stable", Platform: "linux-amd64", Bus: b}
		s, err := New(ctx, settings.New(db), opt)
		if err != nil {
			t.Fatal(err)
		}
		other, err := New(ctx, settings.New(db), Options{DataDir: t.TempDir(), PublicKey: testPub, Channel: "stable", Platform: "linux-amd64", Bus: b})
		if err != nil {
			t.Fatal(err)
		}
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go other.Listen(lctx)
		time.Sleep(20 * time.Millisecond) // let Listen subscribe

		st := s.Current()
		if st.Mode != "trial" || !st.Valid || len(st.InstallBinding) != 64 || st.InstallID == "" {
			t.Fatalf("initial %+v", st)
		}
		good := Payload{LicenseID: "L-1", Customer: "ACME", ExpiresAt: time.Now().Add(90 * 24 * time.Hour), InstallBinding: st.InstallBinding,
			Channel: "stable", Platform: "linux-amd64", Modules: []string{"vendor.helpdesk.*"}}
		_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
		forged, _ := Sign(good, otherPriv)
		with := func(f func(*Payload)) string { p := good; f(&p); return sign(t, p) }
		refused := []struct{ name, key, reason string }{
			{"garbage", "not a key", ReasonFormat},
			{"empty", "   ", ReasonFormat},
			{"only comments", "# a comment\n# another\n", ReasonFormat},
			{"bad signature", forged, ReasonSignature},
			{"expired", with(func(p *Payload) { p.ExpiresAt = time.Now().Add(-time.Hour) }), ReasonExpired},
			{"wrong binding", with(func(p *Payload) { p.InstallBinding = "00ff" }), ReasonBinding},
			{"wrong channel", with(func(p *Payload) { p.Channel = "beta" }), ReasonChannel},
			{"wrong platform", with(func(p *Payload) { p.Platform = "windows-amd64" }), ReasonPlatform},
		}
		for _, c := range refused {
			_, err := s.Activate(ctx, c.key)
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation || fe.Details["reason"] != c.reason || fe.Details["field"] != "licenseKey" {
				t.Fatalf("%s: %v %+v", c.name, err, fe)
			}
			if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
				t.Fatalf("%s: key file written", c.name)
			}
			if s.Current().Mode != "trial" {
				t.Fatalf("%s: status changed", c.name)
			}
		}

		file := "# Core Portal licence for ACME\n\n# issued 2026-01-01\n" + sign(t, good) + "\n# trailing comment\n"
		res, err := s.Activate(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		if res.License.Mode != "licensed" || !res.License.Valid || res.StoragePath != filepath.Join(dir, FileName) || res.License.LicenseID != "L-1" ||
			res.License.Channel != "stable" || len(res.License.Modules) != 1 {
			t.Fatalf("result %+v", res)
		}
		fi, err := os.Stat(res.StoragePath)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("key file %v %v", fi, err)
		}
		if !s.Entitled("vendor.helpdesk") || !s.Entitled("vendor.helpdesk.sla") || s.Entitled("vendor.comms.chat") {
			t.Fatal("entitlement of the key's modules")
		}
		deadline := time.Now().Add(2 * time.Second)
		for other.Current().Mode != "licensed" && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if other.Current().Mode != "licensed" {
			t.Fatalf("other instance: %+v", other.Current())
		}

		// a wildcard binding is accepted on any installation
		wild := with(func(p *Payload) {
			p.InstallBinding = "*"
			p.LicenseID = "L-2"
			p.Modules = nil
			p.Channel = ""
			p.Platform = "*"
		})
		res, err = s.Activate(ctx, wild)
		if err != nil || res.License.LicenseID != "L-2" || res.License.Modules == nil || len(res.License.Modules) != 0 {
			t.Fatalf("wildcard: %+v %v", res, err)
		}
		if s.Entitled("vendor.helpdesk") {
			t.Fatal("a key without modules entitles none")
		}

		// the stored key expiring, or failing under another public key
		later := &Service{settings: settings.New(db), opt: opt, now: func() time.Time { return time.Now().Add(100 * 24 * time.Hour) }}
		if st, err := later.Refresh(ctx); err != nil || st.Mode != "expired" || st.Valid || later.Entitled("x") {
			t.Fatalf("expired key: %+v %v", st, err)
		}
		pub2, _, _ := ed25519.GenerateKey(rand.Reader)
		rekeyed := &Service{settings: settings.New(db), opt: Options{DataDir: dir, PublicKey: pub2}, now: time.Now}
		if st, err := rekeyed.Refresh(ctx); err != nil || st.Mode != "invalid" || st.Valid {
			t.Fatalf("invalid key: %+v %v", st, err)
		}
	})
}

func TestKeyFileFallback(t *testing.T) {
	db := storetest.OpenSQLite(t)
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(ctx, settings.New(db), Options{DataDir: dir, PublicKey: testPub})
	if err != nil {
		t.Fatal(err)
	}
	key := sign(t, Payload{LicenseID: "F-1", Customer: "C", ExpiresAt: time.Now().Add(time.Hour), InstallBinding: "*"})
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("# placed by hand\n"+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Refresh(ctx); err != nil || st.Mode != "licensed" || st.LicenseID != "F-1" || st.DaysRemaining != 1 {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestEntitles(t *testing.T) {
	cases := []struct {
		patterns []string
		key      string
		want     bool
	}{
		{[]string{"*"}, "vendor.anything", true},
		{[]string{"vendor.helpdesk.*"}, "vendor.helpdesk", true},
		{[]string{"vendor.helpdesk.*"}, "vendor.helpdesk.sla", true},
		{[]string{"vendor.helpdesk.*"}, "vendor.helpdeskx", false},
		{[]string{"vendor.helpdesk.*"}, "vendor.comms.chat", false},
		{[]string{"vendor.comms.chat"}, "VENDOR.COMMS.CHAT", true},
		{[]string{"vendor.comms.chat"}, "vendor.comms", false},
		{[]string{"vendor.*"}, "vendor.comms.chat", true},
		{nil, "vendor.x", false},
		{[]string{"*"}, "", false},
	}
	for _, c := range cases {
		if got := Entitles(c.patterns, c.key); got != c.want {
			t.Errorf("Entitles(%v, %q) = %v", c.patterns, c.key, got)
		}
	}
}

func TestKeyText(t *testing.T) {
	for in, want := range map[string]string{
		"abc.def":                     "abc.def",
		"  abc.def  \n":               "abc.def",
		"# comment\n\n  abc.def\nxyz": "abc.def",
		"\r\n#c\r\nabc.def\r\n":       "abc.def",
		"# only\n":                    "",
		"":                            "",
	} {
		if got := KeyText(in); got != want {
			t.Errorf("KeyText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	good, _ := Sign(Payload{LicenseID: "L", Customer: "C", ExpiresAt: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), InstallBinding: "*", Modules: []string{"*"}}, testPriv)
	for _, seed := range []string{good, "", ".", "a.b", good + ".x", "# c\n" + good, "eyJ9.AAAA", good[:len(good)-3], "e30." + good[len(good)-86:]} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(KeyText(s), testPub)
		if err == nil && (p.LicenseID == "" || p.ExpiresAt.IsZero() || p.Modules == nil) {
			t.Fatalf("accepted incomplete payload %+v", p)
		}
		if err != nil {
			if _, ok := err.(*KeyError); !ok {
				t.Fatalf("untyped error %T", err)
			}
		}
	})
}
