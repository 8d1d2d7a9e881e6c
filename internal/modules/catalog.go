package modules

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CatalogEntry is one module a catalog offers (an element of modules in
// catalog.json).
type CatalogEntry struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Package     string `json:"package" doc:"file name of the .coremod, relative to catalog.json"`
	IsFree      bool   `json:"isFree"`
	Template    string `json:"template,omitempty" doc:"portal template the module belongs to (base, helpdesk, comms)"`
	SHA256      string `json:"sha256,omitempty" doc:"hex SHA-256 of the package (vendor modules)"`
	Signature   string `json:"signature,omitempty" doc:"hex Ed25519 signature of ModuleMessage by the vendor key (vendor modules)"`
}

type catalogFile struct {
	Modules []CatalogEntry `json:"modules"`
}

// catalog is a source of packages: the local folder, the remote site or
// the vendor catalog embedded in the binary.
type catalog interface {
	name() string
	entries(ctx context.Context) ([]CatalogEntry, error)
	fetch(ctx context.Context, e CatalogEntry) (*Package, error)
}

const maxCatalogBytes = 1 << 20

func decodeCatalog(r io.Reader) ([]CatalogEntry, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxCatalogBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read catalog.json: %w", err)
	}
	if len(b) > maxCatalogBytes {
		return nil, fmt.Errorf("catalog.json is larger than %d bytes", maxCatalogBytes)
	}
	var f catalogFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("catalog.json is not valid JSON: %w", err)
	}
	out := f.Modules[:0]
	for _, e := range f.Modules {
		// an entry that could not be installed anyway is left out
		if ValidKey(e.ID) && ValidVersion(e.Version) && e.Package != "" {
			out = append(out, e)
		}
	}
	return out, nil
}

// opener turns the bytes of a catalog's package into a Package: archive
// checks, the announced id and version, and for vendor modules the vendor's
// signature (without a valid one a vendor.* package is refused).
type opener struct {
	lim       Limits
	prov      map[string]Provisioner
	vendorKey ed25519.PublicKey // nil: vendor modules come from the embedded catalog only
}

func (o *opener) open(b []byte, e CatalogEntry, source string) (*Package, error) {
	vendor := IsVendorKey(e.ID)
	if vendor {
		if err := o.verify(b, e); err != nil {
			return nil, fmt.Errorf("%s catalog: %s %s: %w", source, e.ID, e.Version, err)
		}
	}
	pkg, err := readPackage(bytes.NewReader(b), int64(len(b)), o.lim, o.prov, source+":"+e.Package, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("%s catalog: %s: %w", source, e.Package, err)
	}
	if pkg.Manifest.ID != e.ID || pkg.Manifest.Version != e.Version {
		return nil, fmt.Errorf("%s catalog: package %s holds %s %s, not %s %s", source, e.Package, pkg.Manifest.ID, pkg.Manifest.Version, e.ID, e.Version)
	}
	pkg.Source, pkg.Free, pkg.Vendor = source, e.IsFree, vendor
	return pkg, nil
}

// ModuleMessage is what the vendor signs for a vendor module offered by a
// local or remote catalog: the free flag is covered, so that editing
// catalog.json cannot turn a paid module into a free one.
func ModuleMessage(id, version, sha256hex string, free bool) []byte {
	kind := "paid"
	if free {
		kind = "free"
	}
	return []byte("coreportal-module\n" + id + "\n" + version + "\n" + strings.ToLower(sha256hex) + "\n" + kind + "\n")
}

func (o *opener) verify(b []byte, e CatalogEntry) error {
	if o.vendorKey == nil {
		return fmt.Errorf("vendor modules are installed from the vendor catalog of the release only")
	}
	sig, err := hex.DecodeString(e.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("no valid vendor signature")
	}
	sum := sha256.Sum256(b)
	if !strings.EqualFold(hex.EncodeToString(sum[:]), e.SHA256) {
		return fmt.Errorf("the package does not have the announced sha256")
	}
	if !ed25519.Verify(o.vendorKey, ModuleMessage(e.ID, e.Version, e.SHA256, e.IsFree), sig) {
		return fmt.Errorf("the vendor signature does not match")
	}
	return nil
}

// localCatalog is MODULE_CATALOG_PATH: catalog.json and the packages beside it.
type localCatalog struct {
	dir string
	*opener
}

func (c *localCatalog) name() string { return "catalog" }

func (c *localCatalog) entries(context.Context) ([]CatalogEntry, error) {
	f, err := os.Open(filepath.Join(c.dir, "catalog.json"))
	if err != nil {
		return nil, fmt.Errorf("open local catalog: %w", err)
	}
	defer f.Close()
	return decodeCatalog(f)
}

func (c *localCatalog) fetch(_ context.Context, e CatalogEntry) (*Package, error) {
	// the package name comes from catalog.json: it must stay inside the folder
	if CheckEntryName(e.Package) != nil {
		return nil, fmt.Errorf("local catalog: package name %q is not a plain relative path", e.Package)
	}
	f, err := os.Open(filepath.Join(c.dir, filepath.FromSlash(e.Package)))
	if err != nil {
		return nil, fmt.Errorf("local catalog: open %s: %w", e.Package, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, c.lim.MaxPackage+1))
	if err != nil {
		return nil, fmt.Errorf("local catalog: read %s: %w", e.Package, err)
	}
	if int64(len(b)) > c.lim.MaxPackage {
		return nil, fmt.Errorf("local catalog: %s is larger than %d bytes", e.Package, c.lim.MaxPackage)
	}
	return c.open(b, e, "catalog")
}

// remoteCatalog is MODULE_CATALOG_URL: catalog.json fetched over HTTP(S)
// (the URL itself when it ends in .json, else <url>/catalog.json), packages
// resolved relative to it.
type remoteCatalog struct {
	base   *url.URL
	client *http.Client
	*opener
}

func newRemoteCatalog(raw string, timeout time.Duration, o *opener) (*remoteCatalog, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("MODULE_CATALOG_URL is not an absolute http(s) URL")
	}
	if !strings.HasSuffix(u.Path, ".json") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/catalog.json"
	}
	return &remoteCatalog{base: u, client: &http.Client{Timeout: timeout}, opener: o}, nil
}

func (c *remoteCatalog) name() string { return "remote" }

func (c *remoteCatalog) get(ctx context.Context, u *url.URL, max int64) ([]byte, error) {
	shown := shownURL(u)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("remote catalog: request for %s is invalid", shown)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its text repeats the whole URL, query and all
			err = ue.Err
		}
		return nil, fmt.Errorf("remote catalog: GET %s: %w", shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("remote catalog: GET %s: status %d", shown, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("remote catalog: read %s: %w", shown, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("remote catalog: %s is larger than %d bytes", shown, max)
	}
	return b, nil
}

// shownURL is u as errors and the status page show it: without user
// information, query and fragment, where catalog tokens travel.
func shownURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

func (c *remoteCatalog) entries(ctx context.Context) ([]CatalogEntry, error) {
	b, err := c.get(ctx, c.base, maxCatalogBytes)
	if err != nil {
		return nil, err
	}
	return decodeCatalog(bytes.NewReader(b))
}

func (c *remoteCatalog) fetch(ctx context.Context, e CatalogEntry) (*Package, error) {
	ref, err := url.Parse(e.Package)
	if err != nil {
		return nil, fmt.Errorf("remote catalog: package %q is not a URL", e.Package)
	}
	u := c.base.ResolveReference(ref)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("remote catalog: package %q is not http(s)", e.Package)
	}
	b, err := c.get(ctx, u, c.lim.MaxPackage)
	if err != nil {
		return nil, err
	}
	return c.open(b, e, "remote")
}
