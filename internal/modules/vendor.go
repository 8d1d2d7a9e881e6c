package modules

import (
	"bytes"
	"context"
	"embed"
	"fmt"
)

// vendorFS is the vendor catalog of this release. Vendor modules (keys
// starting with vendor.) are installed from here only: a vendor.* package
// uploaded by hand, found in deps/ or offered by a local or remote catalog is
// not trusted (see the README, "Modules").
//
//go:embed vendor/*.json
var vendorFS embed.FS

// vendorPrefix starts the key of every vendor product module.
const vendorPrefix = "vendor."

// IsVendorKey reports whether a module key is a vendor product module.
func IsVendorKey(key string) bool {
	return len(key) > len(vendorPrefix) && key[:len(vendorPrefix)] == vendorPrefix
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
	pkg, err := checkFetched(&Package{Manifest: m}, e, "vendor")
	if err != nil {
		return nil, err
	}
	pkg.Vendor = true
	return pkg, nil
}
