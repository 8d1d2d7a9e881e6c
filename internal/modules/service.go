// Package modules installs module packages (.coremod ZIP archives with a
// module.json) and the portal templates of the vendor catalog embedded in
// this release: dependency resolution, licence entitlement, creation of the
// declared resources through the domain services in one transaction per
// installation, and the installed-module records (SPEC.md "Modules").
package modules

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/licence"
	"coreportal/internal/store"
)

// Licence is what modules needs of the licence: entitlement of paid
// modules and the status shown with the catalogs.
type Licence interface {
	licence.Entitlements
	Current() licence.LicenseStatus
}

// Config locates the catalogs.
type Config struct {
	CatalogPath string        // MODULE_CATALOG_PATH
	CatalogURL  string        // MODULE_CATALOG_URL
	Timeout     time.Duration // remote catalog requests (default 15 s)
	Limits      Limits        // zero = DefaultLimits
	// VendorKey checks the signatures of vendor modules offered by the
	// local and remote catalogs; nil = vendor modules from the embedded catalog only.
	VendorKey ed25519.PublicKey
}

// Service installs modules and answers the modules operations.
type Service struct {
	db     *store.DB
	st     *recordStore
	svc    Services
	lic    Licence
	prov   map[string]Provisioner
	lim    Limits
	vendor catalog
	local  catalog // nil when not configured
	remote catalog // nil when not configured
	badURL error   // MODULE_CATALOG_URL set but unusable
	now    func() time.Time
}

// New builds the service.
func New(db *store.DB, svc Services, lic Licence, cfg Config) *Service {
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	prov := builtinProvisioners()
	s := &Service{db: db, st: &recordStore{db: db}, svc: svc, lic: lic, prov: prov, lim: cfg.Limits,
		vendor: &vendorCatalog{prov: prov}, now: time.Now}
	o := &opener{lim: cfg.Limits, prov: prov, vendorKey: cfg.VendorKey}
	if cfg.CatalogPath != "" {
		s.local = &localCatalog{dir: cfg.CatalogPath, opener: o}
	}
	if cfg.CatalogURL != "" {
		rc, err := newRemoteCatalog(cfg.CatalogURL, cfg.Timeout, o)
		if err != nil {
			s.badURL = err
			slog.Warn("remote module catalog disabled", "err", err)
		} else {
			s.remote = rc
		}
	}
	return s
}

// Provisioners returns the built-in provisioner registry (for ReadPackage).
func (s *Service) Provisioners() map[string]Provisioner { return s.prov }

// Limits returns the package limits in force.
func (s *Service) Limits() Limits { return s.lim }

// List returns the installed modules.
func (s *Service) List(ctx context.Context) ([]*Record, error) { return s.st.all(ctx) }

// Resources answers GET /modules/{key}/resources.
func (s *Service) Resources(ctx context.Context, key string) (ResourcesOut, error) {
	if !ValidKey(key) {
		return ResourcesOut{}, fault.Validation("key", "%q is not a module key", key)
	}
	r, err := s.st.get(ctx, key)
	if err != nil {
		return ResourcesOut{}, err
	}
	if r == nil {
		return ResourcesOut{}, fault.NotFound("module")
	}
	return ResourcesOut{ModuleKey: r.ModuleKey, Version: r.Version, ResourceMap: r.ResourceMap, InstallLog: r.InstallLog}, nil
}

// ResourcesOut is the answer of GET /modules/{key}/resources.
type ResourcesOut struct {
	ModuleKey   string            `json:"moduleKey"`
	Version     string            `json:"version"`
	ResourceMap map[string]string `json:"resourceMap" doc:"symbolic key -> uuid; list fields as <list key>.fields.<internalName>, keyed views as <list key>.views.<key>"`
	InstallLog  []LogEntry        `json:"installLog" doc:"every step of every installation and upgrade, oldest first"`
}

// Result is the answer of an installation.
type Result struct {
	ModuleKey             string            `json:"moduleKey"`
	Version               string            `json:"version"`
	Skipped               bool              `json:"skipped" doc:"the same version was installed already: nothing was created"`
	Upgraded              bool              `json:"upgraded"`
	FromVersion           string            `json:"fromVersion,omitempty" doc:"the version before an upgrade"`
	ResourceMap           map[string]string `json:"resourceMap"`
	Log                   []string          `json:"log"`
	DependenciesInstalled []Dependency      `json:"dependenciesInstalled"`
}

// Dependency is a module installed or upgraded to satisfy requires.
type Dependency struct {
	ModuleKey   string `json:"moduleKey"`
	Version     string `json:"version"`
	FromVersion string `json:"fromVersion,omitempty"`
	Source      string `json:"source" doc:"deps/<file>, catalog, remote or vendor"`
}

// Options of one installation.
type Options struct {
	InstallDependencies bool
	Upload              bool // a package sent by the caller (vendor modules refused)
}

// Install installs pkg and, with InstallDependencies, what it requires. The
// whole plan is one transaction: a failure leaves nothing behind.
func (s *Service) Install(ctx context.Context, p *auth.Principal, pkg *Package, opt Options) (*Result, error) {
	res, err := s.install(ctx, p, pkg, opt)
	if err != nil {
		if fe, ok := fault.As(err); ok {
			audit.Record(ctx, audit.Entry{Action: audit.ModuleInstall, ResourceType: "module", ResourceID: pkg.Manifest.ID, Outcome: "failure",
				Details: map[string]any{"version": pkg.Manifest.Version, "source": pkg.Source, "code": string(fe.Code), "reason": fe.Message}})
		}
		return nil, err
	}
	return res, nil
}

func (s *Service) install(ctx context.Context, p *auth.Principal, pkg *Package, opt Options) (*Result, error) {
	m := pkg.Manifest
	if IsVendorKey(m.ID) && (opt.Upload || !pkg.Vendor) {
		return nil, fault.Forbidden("%s is a vendor module: it is installed from the vendor catalog (POST /modules/install-template) with a licence entitlement, never from an uploaded package", m.ID).With("field", "package")
	}
	installed, err := s.recordMap(ctx)
	if err != nil {
		return nil, err
	}
	if rec := installed[m.ID]; rec != nil && CompareVersions(m.Version, rec.Version) < 0 {
		return nil, fault.Validation("version", "%s %s is installed: installing the older %s (rollback) is not supported", m.ID, rec.Version, m.Version).
			With("installed", rec.Version)
	}
	plan, err := s.plan(ctx, pkg, opt.InstallDependencies, installed)
	if err != nil {
		return nil, err
	}
	for _, q := range plan {
		if err := s.entitled(q); err != nil {
			return nil, err
		}
	}
	var res *Result
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.lock(ctx); err != nil {
			return err
		}
		// read again under the lock: another installation may have committed since the plan
		installed, err := s.recordMap(ctx)
		if err != nil {
			return err
		}
		deps, depLog := []Dependency{}, []string{}
		replaced := map[string]bool{}
		for _, q := range plan {
			replaced[q.Manifest.ID] = true
		}
		for _, q := range plan {
			if err := checkDependents(q.Manifest, installed, replaced); err != nil {
				return err
			}
			r, err := s.installOne(ctx, p, q, installed, q != pkg)
			if err != nil {
				return err
			}
			if q == pkg {
				res = r
				continue
			}
			depLog = append(depLog, r.Log...)
			if !r.Skipped {
				deps = append(deps, Dependency{ModuleKey: r.ModuleKey, Version: r.Version, FromVersion: r.FromVersion, Source: q.Source})
			}
		}
		res.Log = append(depLog, res.Log...)
		res.DependenciesInstalled = deps
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkDependents refuses to replace a module by a version that an
// installed module's requires exclude (acme.app requires acme.lib@<2.0.0),
// unless that module is replaced by this installation too.
func checkDependents(m *Manifest, installed map[string]*Record, replaced map[string]bool) error {
	var broken []string
	for _, r := range installed {
		if replaced[r.ModuleKey] || r.ModuleKey == m.ID {
			continue
		}
		for _, s := range r.Requires {
			if req, err := ParseRequirement(s); err == nil && req.Key == m.ID && !req.Allows(m.Version) {
				broken = append(broken, r.ModuleKey+" requires "+s)
			}
		}
	}
	if len(broken) == 0 {
		return nil
	}
	sort.Strings(broken)
	return fault.Conflict("installing %s %s would break installed modules: %s", m.ID, m.Version, strings.Join(broken, "; ")).With("dependents", broken)
}

// entitled refuses a paid vendor module the licence does not cover (free
// modules always, every module during a valid trial).
func (s *Service) entitled(pkg *Package) error {
	if !IsVendorKey(pkg.Manifest.ID) || pkg.Free || s.lic.Entitled(pkg.Manifest.ID) {
		return nil
	}
	return fault.Forbidden("%s is a paid module and the licence does not entitle it (licence modules: %v)", pkg.Manifest.ID, s.lic.Current().Modules).
		With("moduleKey", pkg.Manifest.ID)
}

func (s *Service) recordMap(ctx context.Context) (map[string]*Record, error) {
	all, err := s.st.all(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Record, len(all))
	for _, r := range all {
		out[r.ModuleKey] = r
	}
	return out, nil
}

// installOne installs, upgrades or skips one module inside the
// installation's transaction and updates installed.
func (s *Service) installOne(ctx context.Context, p *auth.Principal, pkg *Package, installed map[string]*Record, asDep bool) (*Result, error) {
	m := pkg.Manifest
	for _, req := range m.reqs {
		if rec := installed[req.Key]; rec == nil || !req.Allows(rec.Version) {
			return nil, fault.Conflict("module %s: requirement %s is no longer satisfied (another installation changed it); try again", m.ID, req).
				With("missing", []string{req.String()})
		}
	}
	now := s.now().UTC()
	rec := installed[m.ID]
	res := &Result{ModuleKey: m.ID, Version: m.Version, Log: []string{}, DependenciesInstalled: []Dependency{}}
	details := map[string]any{"version": m.Version, "source": pkg.Source}
	if asDep {
		details["asDependency"] = true
	}
	if rec != nil {
		switch c := CompareVersions(m.Version, rec.Version); {
		case c == 0:
			res.Skipped, res.ResourceMap = true, rec.ResourceMap
			res.Log = append(res.Log, fmt.Sprintf("%s %s is already installed: skipped", m.ID, m.Version))
			audit.Record(ctx, audit.Entry{Action: ActionSkip, ResourceType: "module", ResourceID: m.ID, Details: details})
			return res, nil
		case c < 0:
			return nil, fault.Validation("version", "%s %s is installed: installing the older %s (rollback) is not supported", m.ID, rec.Version, m.Version).
				With("installed", rec.Version)
		}
		res.Upgraded, res.FromVersion = true, rec.Version
		details["fromVersion"] = rec.Version
	}
	isNew := rec == nil
	if isNew {
		rec = &Record{ModuleKey: m.ID, InstalledAt: now, ResourceMap: map[string]string{}, InstallLog: []LogEntry{}}
	}
	logf := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		res.Log = append(res.Log, m.ID+": "+msg)
		rec.InstallLog = append(rec.InstallLog, LogEntry{At: now, Version: m.Version, Message: msg})
	}
	if res.Upgraded {
		logf("upgrading from %s to %s (%s)", res.FromVersion, m.Version, pkg.Source)
	} else {
		logf("installing %s (%s)", m.Version, pkg.Source)
	}
	rmap := make(map[string]string, len(rec.ResourceMap))
	for k, v := range rec.ResourceMap {
		rmap[k] = v
	}
	c := &creation{svc: s.svc, p: p, m: m, rmap: rmap, records: installed, log: logf}
	if err := c.createAll(ctx); err != nil {
		return nil, err
	}
	if m.Provisioner != "" {
		lines, err := s.prov[m.Provisioner](ctx, ProvisionInput{Module: m.ID, From: res.FromVersion, To: m.Version, ResourceMap: rmap})
		if err != nil {
			return nil, fmt.Errorf("module %s: provisioner %s: %w", m.ID, m.Provisioner, err)
		}
		for _, l := range lines {
			logf("%s", l)
		}
	}
	rec.Version, rec.Title, rec.Description, rec.Source, rec.Requires = m.Version, m.Title, m.Description, pkg.Source, m.Requires
	rec.InstalledBy, rec.UpdatedAt, rec.ResourceMap = p.Login, now, rmap
	if err := s.st.save(ctx, rec, isNew); err != nil {
		return nil, err
	}
	installed[m.ID] = rec
	res.ResourceMap = rmap
	action := audit.ModuleInstall
	if res.Upgraded {
		action = ActionUpgrade
	}
	details["resources"] = len(rmap)
	audit.Record(ctx, audit.Entry{Action: action, ResourceType: "module", ResourceID: m.ID, Details: details})
	return res, nil
}

// Audit actions besides audit.ModuleInstall.
const (
	ActionUpgrade  = "module.upgrade"
	ActionSkip     = "module.skip"
	ActionTemplate = "module.install_template"
)
