package modules

import (
	"context"
	"log/slog"

	"coreportal/internal/fault"
)

// finder looks packages up for one installation: the deps/ folder of the
// uploaded archive, then the local catalog, then the remote one; vendor
// modules come from the embedded vendor catalog only. Catalog listings are
// read once per installation.
type finder struct {
	s        *Service
	root     *Package
	listings map[string][]CatalogEntry
	failed   []string // catalogs that could not be read
}

func (f *finder) entries(ctx context.Context, c catalog) []CatalogEntry {
	if es, ok := f.listings[c.name()]; ok {
		return es
	}
	es, err := c.entries(ctx)
	if err != nil {
		slog.WarnContext(ctx, "module catalog unavailable", "catalog", c.name(), "err", err)
		f.failed = append(f.failed, c.name())
	}
	f.listings[c.name()] = es
	return es
}

// find returns the newest package that satisfies req, or nil.
func (f *finder) find(ctx context.Context, req Requirement) *Package {
	sources := []catalog{f.s.local, f.s.remote}
	if IsVendorKey(req.Key) {
		// the embedded catalog, then entries of the others that the vendor signed
		sources = []catalog{f.s.vendor, f.s.local, f.s.remote}
	} else {
		var best *Package
		for _, d := range f.root.Deps {
			if d.Manifest.ID == req.Key && req.Allows(d.Manifest.Version) && (best == nil || CompareVersions(d.Manifest.Version, best.Manifest.Version) > 0) {
				best = d
			}
		}
		if best != nil {
			return best
		}
	}
	for _, c := range sources {
		if c == nil {
			continue
		}
		if pkg := f.fromCatalog(ctx, c, req); pkg != nil {
			return pkg
		}
	}
	return nil
}

func (f *finder) fromCatalog(ctx context.Context, c catalog, req Requirement) *Package {
	var best *CatalogEntry
	for _, e := range f.entries(ctx, c) {
		if e.ID == req.Key && req.Allows(e.Version) && (best == nil || CompareVersions(e.Version, best.Version) > 0) {
			best = &e
		}
	}
	if best == nil {
		return nil
	}
	pkg, err := c.fetch(ctx, *best)
	if err != nil {
		slog.WarnContext(ctx, "module package unavailable", "catalog", c.name(), "module", best.ID, "version", best.Version, "err", err)
		f.failed = append(f.failed, c.name()+":"+best.ID)
		return nil
	}
	return pkg
}

// unmet is one requirement that cannot be satisfied.
type unmet struct {
	Requirement string `json:"requirement"`
	RequiredBy  string `json:"requiredBy"`
	Installed   string `json:"installed,omitempty"`
	Reason      string `json:"reason"`
}

// plan lists the packages to install, dependencies first and root last.
// Nothing is written: every unmet requirement is collected and answered as
// one 409 CONFLICT with details.missing.
func (s *Service) plan(ctx context.Context, root *Package, withDeps bool, installed map[string]*Record) ([]*Package, error) {
	f := &finder{s: s, root: root, listings: map[string][]CatalogEntry{}}
	planned := map[string]*Package{}
	stack := map[string]bool{}
	var order []*Package
	var missing []unmet
	var visit func(pkg *Package) error
	visit = func(pkg *Package) error {
		m := pkg.Manifest
		stack[m.ID] = true
		defer delete(stack, m.ID)
		for _, req := range m.reqs {
			miss := unmet{Requirement: req.String(), RequiredBy: m.ID}
			if rec := installed[req.Key]; rec != nil {
				miss.Installed = rec.Version
			}
			switch {
			case stack[req.Key]:
				return fault.Validation("requires", "dependency cycle: %s requires %s, which requires it back", m.ID, req.Key)
			case planned[req.Key] != nil:
				if !req.Allows(planned[req.Key].Manifest.Version) {
					miss.Reason = "another module needs " + req.Key + " " + planned[req.Key].Manifest.Version
					missing = append(missing, miss)
				}
				continue
			case miss.Installed != "" && req.Allows(miss.Installed):
				continue
			}
			cand := f.find(ctx, req)
			switch {
			case cand == nil:
				miss.Reason = "not found in deps/, the local or the remote catalog"
				if IsVendorKey(req.Key) {
					miss.Reason = "not in the vendor catalog of this release nor signed by the vendor in the local or remote catalog"
				}
				missing = append(missing, miss)
				continue
			case !withDeps:
				miss.Reason = "available (" + cand.Source + " " + cand.Manifest.Version + ") but installDependencies=false"
				missing = append(missing, miss)
				continue
			case miss.Installed != "" && CompareVersions(cand.Manifest.Version, miss.Installed) < 0:
				miss.Reason = "the installed version is newer than allowed and rollback is not supported"
				missing = append(missing, miss)
				continue
			}
			planned[req.Key] = cand
			if err := visit(cand); err != nil {
				return err
			}
			order = append(order, cand)
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		keys := make([]string, len(missing))
		for i, m := range missing {
			keys[i] = m.Requirement
		}
		e := fault.Conflict("module %s %s: %d dependency requirement(s) not satisfied", root.Manifest.ID, root.Manifest.Version, len(missing)).
			With("missing", keys).With("unsatisfied", missing)
		if len(f.failed) > 0 {
			e = e.With("unavailableCatalogs", f.failed)
		}
		return nil, e
	}
	return append(order, root), nil
}
