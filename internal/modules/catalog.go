package modules

import (
	"bytes"
	"context"
	"encoding/json"
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

// checkFetched makes sure a catalog's package is the module it announced.
func checkFetched(pkg *Package, e CatalogEntry, source string) (*Package, error) {
	if pkg.Manifest.ID != e.ID || pkg.Manifest.Version != e.Version {
		return nil, fmt.Errorf("%s catalog: package %s holds %s %s, not %s %s", source, e.Package, pkg.Manifest.ID, pkg.Manifest.Version, e.ID, e.Version)
	}
	pkg.Source, pkg.Free = source, e.IsFree
	return pkg, nil
}

// localCatalog is MODULE_CATALOG_PATH: catalog.json and the packages beside it.
type localCatalog struct {
	dir  string
	lim  Limits
	prov map[string]Provisioner
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
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("local catalog: stat %s: %w", e.Package, err)
	}
	pkg, err := readPackage(f, st.Size(), c.lim, c.prov, "catalog:"+e.Package, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("local catalog: %s: %w", e.Package, err)
	}
	return checkFetched(pkg, e, "catalog")
}

// remoteCatalog is MODULE_CATALOG_URL: catalog.json fetched over HTTP(S)
// (the URL itself when it ends in .json, else <url>/catalog.json), packages
// resolved relative to it.
type remoteCatalog struct {
	base   *url.URL
	client *http.Client
	lim    Limits
	prov   map[string]Provisioner
}

func newRemoteCatalog(raw string, timeout time.Duration, lim Limits, prov map[string]Provisioner) (*remoteCatalog, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("MODULE_CATALOG_URL %q is not an http(s) URL", raw)
	}
	if !strings.HasSuffix(u.Path, ".json") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/catalog.json"
	}
	return &remoteCatalog{base: u, client: &http.Client{Timeout: timeout}, lim: lim, prov: prov}, nil
}

func (c *remoteCatalog) name() string { return "remote" }

func (c *remoteCatalog) get(ctx context.Context, u *url.URL, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("remote catalog: %w", err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("remote catalog: GET %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("remote catalog: GET %s: status %d", u.Redacted(), resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, fmt.Errorf("remote catalog: read %s: %w", u.Redacted(), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("remote catalog: %s is larger than %d bytes", u.Redacted(), max)
	}
	return b, nil
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
	pkg, err := readPackage(bytes.NewReader(b), int64(len(b)), c.lim, c.prov, "remote:"+e.Package, maxDepth)
	if err != nil {
		return nil, fmt.Errorf("remote catalog: %s: %w", e.Package, err)
	}
	return checkFetched(pkg, e, "remote")
}
