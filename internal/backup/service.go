package backup

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/google/uuid"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// KV is where settings, the runner heartbeat and the maintenance flag live.
type KV interface {
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
}

const (
	settingsKey    = "backup_settings"
	runnerKey      = "backup_runner_seen"
	maintenanceKey = "maintenance"
	// RunnerOnlineWithin: a runner seen this recently is online.
	RunnerOnlineWithin = 30 * time.Second
)

// BackupSettings of the backup catalogue.
type BackupSettings struct {
	Path           string `json:"path" maxLength:"1024" doc:"absolute path of the backup catalogue folder; default {CORE_DATA_DIR}/backups. A relative path, control characters and folders under /proc, /sys or /dev are refused with 400"`
	RetentionCount int    `json:"retentionCount" minimum:"0" maximum:"1000" doc:"successful copies kept (oldest deleted first); 0 = no count limit; default 7"`
	RetentionDays  int    `json:"retentionDays" minimum:"0" maximum:"3650" doc:"copies older than this are deleted; 0 = no age limit; default 30"`
}

// Service runs the backup journal.
type Service struct {
	db      *store.DB
	j       *journal
	blobs   blob.Store
	kv      KV
	dataDir string
	key     *Key
	hooks   Hooks
	now     func() time.Time

	maint      atomic.Bool
	maintCheck atomic.Int64 // unix nano of the last read
}

// New builds the service. dataDir is made absolute once: the default
// catalogue and stored relative catalogue paths resolve against it.
func New(db *store.DB, blobs blob.Store, kv KV, dataDir string, hooks Hooks) *Service {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	return &Service{db: db, j: &journal{db: db}, blobs: blobs, kv: kv, dataDir: dataDir, hooks: hooks, now: time.Now}
}

// SetKey sets the operator's backup key (CORE_BACKUP_KEY; nil: none).
func (s *Service) SetKey(k *Key) { s.key = k }

// Settings returns the stored settings (defaults when none).
func (s *Service) Settings(ctx context.Context) (BackupSettings, error) {
	st := BackupSettings{Path: filepath.Join(s.dataDir, "backups"), RetentionCount: 7, RetentionDays: 30}
	raw, ok, err := s.kv.Get(ctx, settingsKey)
	if err != nil || !ok {
		return st, err
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return st, fmt.Errorf("decode backup settings: %w", err)
	}
	st.Path = s.Dir(st)
	return st, nil
}

// SaveSettings stores the settings (audited).
func (s *Service) SaveSettings(ctx context.Context, st BackupSettings) (BackupSettings, error) {
	if err := checkPath(st.Path); err != nil {
		return BackupSettings{}, err
	}
	st.Path = filepath.Clean(st.Path)
	if st.RetentionCount < 0 || st.RetentionDays < 0 {
		return BackupSettings{}, fault.Validation("retentionCount", "retention values must not be negative")
	}
	before, err := s.Settings(ctx)
	if err != nil {
		return BackupSettings{}, err
	}
	raw, _ := json.Marshal(st)
	if err := s.kv.Set(ctx, settingsKey, string(raw)); err != nil {
		return BackupSettings{}, err
	}
	audit.Record(ctx, audit.Entry{Action: audit.SettingsSave, ResourceType: "settings", ResourceID: "backup", Before: before, After: st})
	return st, nil
}

// checkPath refuses what cannot be a catalogue folder: empty, relative,
// control characters, or the kernel's pseudo file systems. Whether the folder
// is writable and has room is for the validation to report.
func checkPath(p string) error {
	if p == "" {
		return fault.Validation("path", "path is required")
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return fault.Validation("path", "path must not contain control characters")
	}
	if !filepath.IsAbs(p) {
		return fault.Validation("path", "path must be absolute")
	}
	clean := filepath.Clean(p)
	for _, sys := range []string{"/proc", "/sys", "/dev"} {
		if clean == sys || strings.HasPrefix(clean, sys+"/") {
			return fault.Validation("path", "path must not be under %s", sys)
		}
	}
	return nil
}

// Dir is the absolute catalogue folder: a relative path (stored by an older
// release) is taken relative to the data folder.
func (s *Service) Dir(st BackupSettings) string {
	if filepath.IsAbs(st.Path) {
		return filepath.Clean(st.Path)
	}
	return filepath.Join(s.dataDir, st.Path)
}

// RunnerSeen is when a backup runner last reported (zero when never).
func (s *Service) RunnerSeen(ctx context.Context) (time.Time, error) {
	v, ok, err := s.kv.Get(ctx, runnerKey)
	if err != nil || !ok {
		return time.Time{}, err
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return time.Unix(0, n).UTC(), nil
}

// QueueRestore queues a restore of a successful backup.
func (s *Service) QueueRestore(ctx context.Context, sourceID string, opts RestoreOptions) (*BackupRecord, error) {
	return s.queue(ctx, "restore", sourceID, map[string]any{"acceptUnverified": opts.AcceptUnverified})
}

// Queue adds a journal record for the runner (kind validate, backup or restore).
func (s *Service) Queue(ctx context.Context, kind, sourceID string) (*BackupRecord, error) {
	return s.queue(ctx, kind, sourceID, map[string]any{})
}

func (s *Service) queue(ctx context.Context, kind, sourceID string, details map[string]any) (*BackupRecord, error) {
	if kind == "restore" {
		src, err := s.Get(ctx, sourceID)
		if err != nil {
			return nil, err
		}
		if src.Kind != "backup" || src.Status != "succeeded" {
			return nil, fault.Validation("id", "only a successful backup can be restored")
		}
		if _, err := os.Stat(s.fileOf(ctx, src)); err != nil {
			return nil, fault.Validation("id", "the file of this backup no longer exists")
		}
	}
	r := &BackupRecord{ID: uuid.NewString(), Kind: kind, Status: "queued", SourceID: sourceID, CreatedAt: s.now().UTC(), Details: details}
	if p := auth.FromContext(ctx); p != nil {
		r.CreatedBy = p.Login
	}
	if err := s.j.insert(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

func (s *Service) dirOf(ctx context.Context) string {
	st, _ := s.Settings(ctx)
	return s.Dir(st)
}

// fileOf is where a backup's archive was written: the folder its record
// names (details.dir), or the current catalogue for records of older releases.
func (s *Service) fileOf(ctx context.Context, r *BackupRecord) string {
	if dir, ok := r.Details["dir"].(string); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, r.FileName)
	}
	return filepath.Join(s.dirOf(ctx), r.FileName)
}

// Get returns one record: 400 for a malformed id (CONTRACT.md: bad UUIDs),
// 404 for a well-formed one that is not in the journal.
func (s *Service) Get(ctx context.Context, id string) (*BackupRecord, error) {
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "the backup record id must be a UUID")
	}
	r, err := s.j.get(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("backup record")
	}
	return r, err
}

// List returns the journal, newest first.
func (s *Service) List(ctx context.Context, offset, limit int) ([]*BackupRecord, int, error) {
	return s.j.list(ctx, "", nil, offset, limit)
}

// Restorable returns successful backups whose file exists where it was
// written (also in a former catalogue folder).
func (s *Service) Restorable(ctx context.Context) ([]*BackupRecord, error) {
	rows, _, err := s.j.list(ctx, " WHERE kind = 'backup' AND status = 'succeeded'", nil, 0, 1000)
	if err != nil {
		return nil, err
	}
	out := []*BackupRecord{}
	for _, r := range rows {
		if _, err := os.Stat(s.fileOf(ctx, r)); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// Delete removes a record and its file (not while it runs).
func (s *Service) Delete(ctx context.Context, id string) error {
	r, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if r.Status == "running" {
		return fault.Conflict("the record is running")
	}
	if r.FileName != "" {
		if err := os.Remove(s.fileOf(ctx, r)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("delete backup file: %w", err)
		}
	}
	audit.Record(ctx, audit.Entry{Action: audit.BackupDelete, ResourceType: "backup", ResourceID: id, Before: map[string]any{"fileName": r.FileName, "kind": r.Kind}})
	return s.j.delete(ctx, id)
}

// Maintenance reports whether a restore is running (cached for a second).
func (s *Service) Maintenance(ctx context.Context) bool {
	now := time.Now().UnixNano()
	if now-s.maintCheck.Load() > int64(time.Second) {
		s.maintCheck.Store(now)
		v, ok, err := s.kv.Get(ctx, maintenanceKey)
		s.maint.Store(err == nil && ok && v != "")
	}
	return s.maint.Load()
}

// BackupStatus is the runner and catalogue summary (settings answer, dashboard).
type BackupStatus struct {
	BackupSettings
	Dir             string     `json:"dir" doc:"absolute path of the catalogue folder (path resolved against the data folder)"`
	KeyConfigured   bool       `json:"keyConfigured" doc:"CORE_BACKUP_KEY is set: archives carry their secrets encrypted and a signed manifest"`
	LastValidatedOk *bool      `json:"lastValidatedOk" doc:"outcome of the newest finished validation; null when never validated"`
	RunnerOnline    bool       `json:"runnerOnline"`
	RunnerSeenAt    *time.Time `json:"runnerSeenAt"`
	Copies          int        `json:"copies" doc:"successful copies whose file exists"`
	LastBackupAt    *time.Time `json:"lastBackupAt"`
	LastBackupSize  int64      `json:"lastBackupSize"`
	Maintenance     bool       `json:"maintenance" doc:"a restore is running: writes answer 503"`
}

// Status builds the summary.
func (s *Service) Status(ctx context.Context) (BackupStatus, error) {
	st, err := s.Settings(ctx)
	if err != nil {
		return BackupStatus{}, err
	}
	out := BackupStatus{BackupSettings: st, Dir: s.Dir(st), Maintenance: s.Maintenance(ctx), KeyConfigured: s.key != nil}
	if seen, err := s.RunnerSeen(ctx); err == nil && !seen.IsZero() {
		out.RunnerSeenAt = &seen
		out.RunnerOnline = s.now().Sub(seen) < RunnerOnlineWithin
	}
	v, _, err := s.j.list(ctx, " WHERE kind = 'validate' AND status IN ('succeeded', 'failed')", nil, 0, 1)
	if err != nil {
		return BackupStatus{}, err
	}
	if len(v) > 0 {
		ok := v[0].Status == "succeeded"
		out.LastValidatedOk = &ok
	}
	copies, err := s.Restorable(ctx)
	if err != nil {
		return BackupStatus{}, err
	}
	out.Copies = len(copies)
	if len(copies) > 0 {
		out.LastBackupAt, out.LastBackupSize = copies[0].FinishedAt, copies[0].Size
	}
	return out, nil
}

// freeBytes is the free space of the folder's file system.
func freeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

func logRun(ctx context.Context, r *BackupRecord) {
	slog.InfoContext(ctx, "backup runner: "+r.Kind+" "+r.Status, "category", "backup", "record", r.ID, "file", r.FileName, "size", r.Size, "err", r.Error)
}
