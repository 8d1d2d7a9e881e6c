package modules

import (
	"context"
	"path/filepath"
	"testing"

	"coreportal/internal/licence"
	"coreportal/internal/store/storetest"
)

// TestCatalogStatusReportsEachSource: a missing local folder and an
// unusable URL are reported as errors without failing the answer, and
// availability follows the licence.
func TestCatalogStatusReportsEachSource(t *testing.T) {
	db := storetest.OpenSQLite(t)
	cases := []struct {
		name          string
		lic           licence.LicenseStatus
		cfg           Config
		local, remote string
		vendorAvail   int
	}{
		{"trial, nothing configured", licence.LicenseStatus{Mode: "trial", Valid: true, Modules: []string{"*"}}, Config{}, "not_configured", "not_configured", 3},
		{"licensed without chat", licence.LicenseStatus{Mode: "licensed", Valid: true, Modules: []string{"vendor.helpdesk.*"}},
			Config{CatalogPath: filepath.Join(t.TempDir(), "missing"), CatalogURL: "ftp://example.com/"}, "error", "error", 2},
		{"expired", licence.LicenseStatus{Mode: "expired", Modules: []string{}}, Config{}, "not_configured", "not_configured", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(db, Services{}, fakeLicence{c.lic}, c.cfg)
			st, err := s.CatalogStatus(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if st.Local.Status != c.local || st.Remote.Status != c.remote || st.Vendor.Modules != 3 || st.Vendor.Available != c.vendorAvail || st.Licence.Mode != c.lic.Mode {
				t.Fatalf("status %+v", st)
			}
			if c.local == "error" && st.Local.Message == "" {
				t.Fatal("no reason for the failing local catalog")
			}
			comms := st.Templates[2]
			if comms.TemplateID != "comms" || comms.Available != c.vendorAvail-2 {
				t.Fatalf("comms counters %+v", comms)
			}
		})
	}
}
