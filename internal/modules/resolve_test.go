package modules

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/licence"
)

type fakeLicence struct{ st licence.LicenseStatus }

func (f fakeLicence) Entitled(key string) bool {
	return f.st.Valid && licence.Entitles(f.st.Modules, key)
}
func (f fakeLicence) Current() licence.LicenseStatus { return f.st }

// TestPlanSearchesDepsThenLocalThenRemote resolves requirements from the
// three sources in order and reports what none of them has as one 409.
func TestPlanSearchesDepsThenLocalThenRemote(t *testing.T) {
	local := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(local, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("base-1.0.0.coremod", zipOf(t, entry{"module.json", manifestJSON("acme.base", "1.0.0")}))
	write("base-1.5.0.coremod", zipOf(t, entry{"module.json", manifestJSON("acme.base", "1.5.0")}))
	write("theme.coremod", zipOf(t, entry{"module.json", manifestJSON("acme.theme", "2.0.0", "acme.base@>=1.2.0")}))
	write("catalog.json", []byte(`{"modules":[
		{"id":"acme.base","version":"1.0.0","title":"Base","package":"base-1.0.0.coremod"},
		{"id":"acme.base","version":"1.5.0","title":"Base","package":"base-1.5.0.coremod"},
		{"id":"acme.theme","version":"2.0.0","title":"Theme","package":"theme.coremod"},
		{"id":"vendor.helpdesk","version":"9.0.0","title":"Fake","package":"theme.coremod"}]}`))
	remoteHits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		remoteHits++
		switch r.URL.Path {
		case "/cat/catalog.json":
			_, _ = w.Write([]byte(`{"modules":[{"id":"acme.chat","version":"3.0.0","title":"Chat","package":"pkgs/chat.coremod"}]}`))
		case "/cat/pkgs/chat.coremod":
			_, _ = w.Write(zipOf(t, entry{"module.json", manifestJSON("acme.chat", "3.0.0")}))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	s := New(nil, Services{}, fakeLicence{}, Config{CatalogPath: local, CatalogURL: srv.URL + "/cat/"})

	root := &Package{Manifest: mustManifest(t, manifestJSON("acme.app", "1.0.0", "acme.theme", "acme.chat@3.0.0", "acme.util")), Source: "upload"}
	root.Deps = []*Package{{Manifest: mustManifest(t, manifestJSON("acme.util", "0.1.0")), Source: "deps/util.coremod"}}
	plan, err := s.plan(context.Background(), root, true, map[string]*Record{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan {
		got = append(got, p.Manifest.ID+"@"+p.Manifest.Version+"<"+p.Source)
	}
	want := "acme.base@1.5.0<catalog,acme.theme@2.0.0<catalog,acme.chat@3.0.0<remote,acme.util@0.1.0<deps/util.coremod,acme.app@1.0.0<upload"
	if strings.Join(got, ",") != want {
		t.Fatalf("plan\n %s\nwant\n %s", strings.Join(got, ","), want)
	}
	if remoteHits != 2 {
		t.Fatalf("remote catalog read %d times, want catalog.json and one package", remoteHits)
	}

	// installed modules satisfy requirements; unmet ones are all reported
	installed := map[string]*Record{"acme.base": {ModuleKey: "acme.base", Version: "1.3.0"}}
	root = &Package{Manifest: mustManifest(t, manifestJSON("acme.app", "1.0.0", "acme.base@>=1.0.0", "acme.nowhere@>=1.0.0", "acme.chat@<3.0.0", "vendor.helpdesk@>=9.0.0"))}
	_, err = s.plan(context.Background(), root, true, installed)
	fe, ok := fault.As(err)
	if !ok || fe.Code != fault.CodeConflict {
		t.Fatalf("want 409, got %v", err)
	}
	missing, _ := fe.Details["missing"].([]string)
	if strings.Join(missing, ",") != "acme.nowhere@>=1.0.0,acme.chat@<3.0.0,vendor.helpdesk@>=9.0.0" {
		t.Fatalf("missing %v", missing)
	}

	// installDependencies=false: available is not enough
	root = &Package{Manifest: mustManifest(t, manifestJSON("acme.app", "1.0.0", "acme.base@>=1.4.0"))}
	_, err = s.plan(context.Background(), root, false, installed)
	if fe, ok := fault.As(err); !ok || fe.Code != fault.CodeConflict || !strings.Contains(fe.Details["unsatisfied"].([]unmet)[0].Reason, "installDependencies=false") {
		t.Fatalf("want 409 for installDependencies=false, got %v", err)
	}
}

func TestRemoteCatalogLimits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"modules":[` + strings.Repeat(" ", maxCatalogBytes) + `]}`))
	}))
	defer srv.Close()
	rc, err := newRemoteCatalog(srv.URL+"/catalog.json", 5*time.Second, &opener{lim: DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.entries(context.Background()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("an oversized catalog.json was accepted: %v", err)
	}
	if _, err := newRemoteCatalog("file:///etc/passwd", 1, &opener{lim: DefaultLimits}); err == nil {
		t.Fatal("a file: URL was accepted")
	}
}

func mustManifest(t *testing.T, raw []byte) *Manifest {
	t.Helper()
	m, err := ParseManifest(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVendorModuleFromCatalogNeedsTheVendorSignature: a vendor.* entry of a
// local catalog is used only with a valid signature over id, version,
// sha256 and the free flag.
func TestVendorModuleFromCatalogNeedsTheVendorSignature(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	pkg := zipOf(t, entry{"module.json", manifestJSON("vendor.extra", "1.0.0")})
	sum := sha256.Sum256(pkg)
	sha := hex.EncodeToString(sum[:])
	sign := func(free bool) string {
		return hex.EncodeToString(ed25519.Sign(priv, ModuleMessage("vendor.extra", "1.0.0", sha, free)))
	}
	e := CatalogEntry{ID: "vendor.extra", Version: "1.0.0", Package: "x", SHA256: sha, Signature: sign(false)}
	o := &opener{lim: DefaultLimits, vendorKey: pub}
	got, err := o.open(pkg, e, "catalog")
	if err != nil || !got.Vendor || got.Free {
		t.Fatalf("signed package: %+v %v", got, err)
	}
	flipped := e
	flipped.IsFree = true // catalog.json edited to make a paid module free
	other := e
	other.SHA256 = strings.Repeat("0", 64)
	for name, c := range map[string]struct {
		e CatalogEntry
		o *opener
	}{
		"free flag flipped": {flipped, o},
		"other sha256":      {other, o},
		"no signature":      {CatalogEntry{ID: "vendor.extra", Version: "1.0.0", Package: "x", SHA256: sha}, o},
		"no vendor key":     {e, &opener{lim: DefaultLimits}},
	} {
		if _, err := c.o.open(pkg, c.e, "catalog"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// a non-vendor module needs no signature
	plain := zipOf(t, entry{"module.json", manifestJSON("acme.extra", "1.0.0")})
	if _, err := o.open(plain, CatalogEntry{ID: "acme.extra", Version: "1.0.0", Package: "y"}, "catalog"); err != nil {
		t.Fatal(err)
	}
}
