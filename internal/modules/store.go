package modules

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"coreportal/internal/store"
)

// Record is an installed module (SPEC.md "Module record") with what the
// resources operation shows.
type Record struct {
	ModuleKey   string            `json:"moduleKey"`
	Version     string            `json:"version"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Source      string            `json:"source" doc:"where the installed version came from: upload, deps/<file>, catalog, remote or vendor"`
	InstalledAt time.Time         `json:"installedAt" doc:"first installation"`
	InstalledBy string            `json:"installedBy" doc:"login of the administrator who installed or last upgraded it"`
	UpdatedAt   time.Time         `json:"updatedAt" doc:"last installation or upgrade"`
	Requires    []string          `json:"requires" doc:"requires of the installed version, as written in module.json"`
	ResourceMap map[string]string `json:"-"`
	InstallLog  []LogEntry        `json:"-"`
}

// LogEntry is one step of an installation, kept with the record.
type LogEntry struct {
	At      time.Time `json:"at"`
	Version string    `json:"version"`
	Message string    `json:"message"`
}

type recordStore struct{ db *store.DB }

const recordCols = `module_key, version, title, description, source, installed_at, installed_by, updated_at, resource_map, install_log, requires`

// lock serialises installations on PostgreSQL for the transaction bound to
// ctx, so that two concurrent installs of one module cannot both see it
// missing; SQLite has one writer connection, which serialises them already.
func (s *recordStore) lock(ctx context.Context) error {
	if s.db.Dialect != store.Postgres {
		return nil
	}
	if _, err := s.db.W(ctx).ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, installLockID); err != nil {
		return fmt.Errorf("lock module installation: %w", err)
	}
	return nil
}

// installLockID is an arbitrary constant for pg_advisory_xact_lock.
const installLockID = 7_306_130_001

func scanRecord(sc store.Scanner) (*Record, error) {
	var r Record
	var rm, lg, rq []byte
	if err := sc.Scan(&r.ModuleKey, &r.Version, &r.Title, &r.Description, &r.Source, &r.InstalledAt, &r.InstalledBy, &r.UpdatedAt, &rm, &lg, &rq); err != nil {
		return nil, err
	}
	r.ResourceMap, r.InstallLog, r.Requires = map[string]string{}, []LogEntry{}, []string{}
	if err := json.Unmarshal(rq, &r.Requires); err != nil {
		return nil, fmt.Errorf("decode requires of %s: %w", r.ModuleKey, err)
	}
	if err := json.Unmarshal(rm, &r.ResourceMap); err != nil {
		return nil, fmt.Errorf("decode resource map of %s: %w", r.ModuleKey, err)
	}
	if err := json.Unmarshal(lg, &r.InstallLog); err != nil {
		return nil, fmt.Errorf("decode install log of %s: %w", r.ModuleKey, err)
	}
	r.InstalledAt, r.UpdatedAt = r.InstalledAt.UTC(), r.UpdatedAt.UTC()
	return &r, nil
}

// all returns every installed module by key.
func (s *recordStore) all(ctx context.Context) ([]*Record, error) {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+recordCols+` FROM modules ORDER BY module_key`)
	if err != nil {
		return nil, fmt.Errorf("list modules: %w", err)
	}
	out, err := store.AppendRows(rows, []*Record{}, scanRecord)
	if err != nil {
		return nil, fmt.Errorf("list modules: %w", err)
	}
	return out, nil
}

// get returns one record, or nil when the module is not installed.
func (s *recordStore) get(ctx context.Context, key string) (*Record, error) {
	r, err := scanRecord(s.db.Q(ctx).QueryRowContext(ctx, `SELECT `+recordCols+` FROM modules WHERE module_key = ?`, key))
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load module %s: %w", key, err)
	}
	return r, nil
}

// save inserts or updates a record (the caller holds the install lock).
func (s *recordStore) save(ctx context.Context, r *Record, isNew bool) error {
	rm, err := json.Marshal(r.ResourceMap)
	if err != nil {
		return fmt.Errorf("encode resource map of %s: %w", r.ModuleKey, err)
	}
	lg, err := json.Marshal(r.InstallLog)
	if err != nil {
		return fmt.Errorf("encode install log of %s: %w", r.ModuleKey, err)
	}
	if r.Requires == nil {
		r.Requires = []string{}
	}
	rq, err := json.Marshal(r.Requires)
	if err != nil {
		return fmt.Errorf("encode requires of %s: %w", r.ModuleKey, err)
	}
	if isNew {
		_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO modules (`+recordCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ModuleKey, r.Version, r.Title, r.Description, r.Source, r.InstalledAt, r.InstalledBy, r.UpdatedAt, string(rm), string(lg), string(rq))
	} else {
		_, err = s.db.W(ctx).ExecContext(ctx, `UPDATE modules SET version = ?, title = ?, description = ?, source = ?, installed_by = ?, updated_at = ?,
			resource_map = ?, install_log = ?, requires = ? WHERE module_key = ?`,
			r.Version, r.Title, r.Description, r.Source, r.InstalledBy, r.UpdatedAt, string(rm), string(lg), string(rq), r.ModuleKey)
	}
	if err != nil {
		return fmt.Errorf("save module %s: %w", r.ModuleKey, err)
	}
	return nil
}
