package backup

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"coreportal/internal/audit"
	"coreportal/internal/privfs"
)

// Run is the backup runner: it reports itself every few seconds and executes
// queued journal records one at a time until ctx ends.
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var beat time.Time
	for {
		now := s.now()
		if now.Sub(beat) >= 5*time.Second {
			beat = now
			_ = s.kv.Set(ctx, runnerKey, strconv.FormatInt(now.UnixNano(), 10))
			_ = s.j.failStale(ctx, now.Add(-6*time.Hour), now.UTC())
		}
		for ctx.Err() == nil {
			ran, err := s.RunOnce(ctx)
			if err != nil {
				slog.WarnContext(ctx, "backup runner", "category", "backup", "err", err)
			}
			if !ran {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce executes the oldest queued record, if any.
func (s *Service) RunOnce(ctx context.Context) (bool, error) {
	r, err := s.j.claim(ctx, s.now().UTC())
	if err != nil || r == nil {
		return false, err
	}
	// a run is finished even when the runner is asked to stop meanwhile
	ctx = context.WithoutCancel(ctx)
	var runErr error
	switch r.Kind {
	case "validate":
		runErr = s.validate(ctx, r)
	case "backup":
		runErr = s.backup(ctx, r)
	case "restore":
		runErr = s.restore(ctx, r)
	default:
		runErr = fmt.Errorf("unknown kind %q", r.Kind)
	}
	r.Status = "succeeded"
	if runErr != nil {
		r.Status, r.Error = "failed", runErr.Error()
	}
	logRun(ctx, r)
	return true, s.j.finish(ctx, r, s.now().UTC())
}

// minFree is the free space a validation asks for.
const minFree = 100 << 20

func (s *Service) validate(ctx context.Context, r *BackupRecord) error {
	dir := s.dirOf(ctx)
	r.Details["dir"] = dir
	if err := privfs.MkdirNew(dir); err != nil {
		return err
	}
	probe := filepath.Join(dir, ".write-test")
	if err := os.WriteFile(probe, []byte("ok"), 0o600); err != nil {
		return fmt.Errorf("%s is not writable: %w", dir, err)
	}
	_ = os.Remove(probe)
	free, err := freeBytes(dir)
	if err != nil {
		return fmt.Errorf("free space of %s: %w", dir, err)
	}
	r.Details["freeBytes"] = free
	if free < minFree {
		return fmt.Errorf("only %d MB free in %s", free>>20, dir)
	}
	return nil
}

// Backup writes one archive into dir and returns its file name and manifest.
func (s *Service) Backup(ctx context.Context, dir, name string) (*Manifest, int64, error) {
	if err := privfs.MkdirNew(dir); err != nil {
		return nil, 0, err
	}
	tmpPath := filepath.Join(dir, "."+name+".partial")
	f, err := privfs.Create(tmpPath)
	if err != nil {
		return nil, 0, fmt.Errorf("create archive: %w", err)
	}
	defer os.Remove(tmpPath)
	m, err := Write(ctx, s.db, s.blobs, f, func() (TempFile, error) {
		tf, err := os.CreateTemp(dir, ".part-*")
		if err != nil {
			return nil, err
		}
		_ = os.Remove(tf.Name()) // unlinked: gone when closed
		return tf, nil
	}, s.key)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := os.Stat(tmpPath)
	if err != nil {
		return nil, 0, err
	}
	if err := os.Rename(tmpPath, filepath.Join(dir, name)); err != nil {
		return nil, 0, fmt.Errorf("publish archive: %w", err)
	}
	return m, st.Size(), nil
}

func (s *Service) backup(ctx context.Context, r *BackupRecord) error {
	name := "core-backup-" + s.now().UTC().Format("20060102-150405") + "-" + r.ID[:8] + ".tar"
	dir := s.dirOf(ctx)
	m, size, err := s.Backup(ctx, dir, name)
	if err != nil {
		return err
	}
	r.FileName, r.Size = name, size
	r.Details["dir"] = dir // the copy stays restorable after the catalogue path changes
	r.Details["counts"] = m.Counts
	r.Details["schemaVersion"] = m.SchemaVersion
	r.Details["dialect"] = m.Dialect
	r.Details["signed"] = m.Protection != nil
	r.Details["secretsEncrypted"] = m.Secrets.Encrypted
	if !m.Secrets.Encrypted && len(m.Secrets.Withheld) > 0 {
		r.Details["secretsOmitted"] = m.Secrets.Withheld
		r.Details["warning"] = "CORE_BACKUP_KEY is not set: the secrets were left out of the archive and its manifest is not signed; " +
			"a restore of it must accept an unverified archive and restores no secret"
	}
	audit.Record(ctx, audit.Entry{Action: audit.BackupRun, ResourceType: "backup", ResourceID: r.ID, Actor: &audit.Actor{Login: "core-backup"},
		Details: map[string]any{"fileName": name, "size": size, "counts": m.Counts}})
	return s.retain(ctx, r.ID)
}

// retain deletes old successful copies beyond retentionCount or retentionDays
// (never the one just written).
func (s *Service) retain(ctx context.Context, keep string) error {
	st, err := s.Settings(ctx)
	if err != nil {
		return err
	}
	rows, _, err := s.j.list(ctx, " WHERE kind = 'backup' AND status = 'succeeded'", nil, 0, 100000)
	if err != nil {
		return err
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].CreatedAt.After(rows[j].CreatedAt) })
	cutoff := s.now().Add(-time.Duration(st.RetentionDays) * 24 * time.Hour)
	kept := 1 // the copy just written (its record is still running)
	for _, r := range rows {
		if r.ID == keep {
			continue
		}
		old := st.RetentionDays > 0 && r.CreatedAt.Before(cutoff)
		over := st.RetentionCount > 0 && kept >= st.RetentionCount
		if !old && !over {
			kept++
			continue
		}
		if err := os.Remove(s.fileOf(ctx, r)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("retention: %w", err)
		}
		if err := s.j.delete(ctx, r.ID); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) restore(ctx context.Context, r *BackupRecord) error {
	src, err := s.j.get(ctx, r.SourceID)
	if err != nil {
		return fmt.Errorf("backup %s: %w", r.SourceID, err)
	}
	path := s.fileOf(ctx, src)
	accept, _ := r.Details["acceptUnverified"].(bool)
	rep, err := s.RestoreFile(ctx, path, RestoreOptions{AcceptUnverified: accept})
	if err != nil {
		return err
	}
	r.Details["counts"] = rep.Manifest.Counts
	r.Details["fileName"] = src.FileName
	rep.details(r.Details)
	return nil
}

// maintenanceSeen is how long every instance takes to see the maintenance
// flag (Maintenance caches it for a second).
const maintenanceSeen = 1100 * time.Millisecond

// RestoreFile puts the service in maintenance (writes answer 503), verifies
// the archive (a damaged, edited or, unless opts accept it, unverifiable one
// is refused before anything changes, and maintenance ends), restores it and
// records it in the audit log.
func (s *Service) RestoreFile(ctx context.Context, path string, opts RestoreOptions) (*RestoreReport, error) {
	if err := s.kv.Set(ctx, maintenanceKey, "restore"); err != nil {
		return nil, err
	}
	began := time.Now()
	s.maint.Store(true) // this instance at once, the others within a second
	s.maintCheck.Store(began.UnixNano())
	defer func() {
		_ = s.kv.Set(context.WithoutCancel(ctx), maintenanceKey, "")
		s.maintCheck.Store(0)
	}()
	c, err := Verify(path, s.key)
	if err != nil {
		return nil, err
	}
	if !c.Verified && !opts.AcceptUnverified {
		return nil, fmt.Errorf("%w: %s. Set CORE_BACKUP_KEY to the key the archive was written with, or accept an unverified "+
			"archive (coreportal restore --accept-unverified, or POST /admin/backups/{id}/restore with {\"acceptUnverified\": true}): "+
			"its data is then restored as it is and none of its secrets", ErrUnverified, c.Why)
	}
	time.Sleep(maintenanceSeen - time.Since(began)) // every instance refuses writes before rows change
	m, err := apply(ctx, s.db, s.blobs, path, c, s.hooks)
	if err != nil {
		return nil, err
	}
	rep := newReport(c)
	if s.hooks.Administrators != nil {
		if rep.Administrators, err = s.hooks.Administrators(ctx); err != nil {
			return nil, err
		}
	}
	audit.Record(ctx, audit.Entry{Action: audit.BackupRestore, ResourceType: "backup", ResourceID: filepath.Base(path), Actor: &audit.Actor{Login: "core-backup"},
		Details: map[string]any{"counts": m.Counts, "dialect": m.Dialect, "createdAt": m.CreatedAt, "verified": c.Verified, "secretsNotRestored": rep.SecretsNotRestored}})
	return rep, nil
}
