package modules

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"strings"
)

// vendorFS is the vendor catalog of this release. Vendor modules (keys
// starting with vendor.) come from here, or from a local or remote catalog
// entry that carries the vendor's signature; a vendor.* package uploaded by
// hand or found in deps/ is never trusted (see the README, "Modules").
//
//go:embed vendor/*.json
var vendorFS embed.FS

// vendorPrefix starts the key of every vendor product module.
const vendorPrefix = "vendor."

// IsVendorKey reports whether a module key is a vendor product module.
func IsVendorKey(key string) bool {
	return strings.HasPrefix(key, vendorPrefix)
}

type vendorCatalog struct {
	prov map[string]Provisioner
}

func (c *vendorCatalog) name() string { return "vendor" }

func (c *vendorCatalog) entries(context.Context) ([]CatalogEntry, error) {
	b, err := vendorFS.ReadFile("vendor/catalog.json")
	if err != nil {
		return nil, fmt.Errorf("vendor catalog: %w", err)
	}
	return decodeCatalog(bytes.NewReader(b))
}

func (c *vendorCatalog) fetch(_ context.Context, e CatalogEntry) (*Package, error) {
	b, err := vendorFS.ReadFile("vendor/" + e.Package)
	if err != nil {
		return nil, fmt.Errorf("vendor catalog: %w", err)
	}
	m, err := ParseManifest(b, c.prov)
	if err != nil {
		return nil, fmt.Errorf("vendor catalog: %s: %w", e.Package, err)
	}
	if m.ID != e.ID || m.Version != e.Version {
		return nil, fmt.Errorf("vendor catalog: %s holds %s %s, not %s %s", e.Package, m.ID, m.Version, e.ID, e.Version)
	}
	return &Package{Manifest: m, Source: "vendor", Vendor: true, Free: e.IsFree}, nil
}
