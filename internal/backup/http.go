package backup

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/web"
)

// Handler serves /admin/settings/backup and /admin/backups.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

const journalDoc = ` Journal records: id, kind (validate, backup, restore), status (queued, running, succeeded, failed),
fileName, size (bytes), sourceId (restore: the backup restored), error, details (backup: counts of tables, rows, blobs
and blob bytes, schema version, dialect; validate: folder and free bytes), createdBy, createdAt, startedAt,
finishedAt, durationMs. Queued records are executed one at a time by the backup runner (coreportal backup-runner,
or inside coreportal serve / worker).`

const idDoc = ` A malformed id answers 400 VALIDATION_ERROR; a well-formed id not in the journal 404.`

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	get := web.Op(http.MethodGet, "/admin/settings/backup", "getBackupSettings", "Backup settings and runner status", web.Admin, "admin-backups")
	get.Description += ` path, retentionCount, retentionDays, the resolved absolute folder (dir: the default is
{CORE_DATA_DIR}/backups, and a relative path stored by an older release is taken relative to the data folder, once),
keyConfigured (CORE_BACKUP_KEY is set), lastValidatedOk (newest finished validation), runnerOnline (a runner reported
within 30 s) and runnerSeenAt, copies (successful backups whose file exists), lastBackupAt, lastBackupSize,
maintenance (a restore is running). New installations back up daily at 01:00 (service core-backup, switched with
PATCH /services/core-backup) and keep 7 copies.`
	web.Register(api, get, h.getSettings)
	put := web.Op(http.MethodPut, "/admin/settings/backup", "putBackupSettings", "Save the backup catalogue and retention", web.Admin, "admin-backups")
	put.Description += ` Retention is applied after every successful backup: copies beyond retentionCount (newest kept)
or older than retentionDays are deleted with their file; 0 switches a limit off.`
	web.Register(api, put, h.putSettings)
	v := web.Op(http.MethodPost, "/admin/settings/backup/validate", "validateBackup", "Queue a validation of the catalogue (writable, at least 100 MB free)", web.Admin, "admin-backups")
	v.Description += journalDoc
	web.Register(api, web.Answers(v, http.StatusAccepted), h.validate)
	l := web.Op(http.MethodGet, "/admin/backups", "listBackups", "Backup journal (validate, backup, restore), newest first", web.Admin, "admin-backups")
	l.Description += journalDoc
	web.Register(api, l, h.list)
	q := web.Op(http.MethodPost, "/admin/backups", "queueBackup", "Queue a backup", web.Admin, "admin-backups")
	q.Description += ` Answers 202 with the queued record. The archive (a tar file in the catalogue) holds a consistent
snapshot of the database taken in one read-only transaction while the service keeps serving writes, every blob a
record references, and a manifest (format and schema version, counts, SHA-256 of every part). Archive and catalogue
files are written 0600 (a catalogue folder the runner creates 0700). Secrets never appear in clear: the JWT signing
secret and other secret settings, the SMTP and LDAP passwords and local password hashes are withheld from the table
parts. With CORE_BACKUP_KEY they are encrypted into the archive (XChaCha20-Poly1305 under a key derived from
CORE_BACKUP_KEY with argon2id and a per-archive salt) and the manifest is signed (HMAC-SHA256); the record's details
say signed and secretsEncrypted. Without CORE_BACKUP_KEY they are left out, the manifest is not signed, and details
name them (secretsOmitted) with a warning.` + journalDoc
	web.Register(api, web.Answers(q, http.StatusAccepted), h.queue)
	web.Register(api, web.Op(http.MethodGet, "/admin/backups/restorable", "restorableBackups", "Successful backups whose file exists where it was written (details.dir, also a former catalogue folder)", web.Admin, "admin-backups"), h.restorable)
	r := web.Op(http.MethodPost, "/admin/backups/{id}/restore", "restoreBackup", "Queue a restore of a successful backup", web.Admin, "admin-backups")
	r.Description += ` Answers 202 with the queued restore record. The runner verifies the manifest, its signature and
every checksum first (a damaged archive is refused before anything changes): an archive whose manifest signature does
not match under CORE_BACKUP_KEY (edited after it was written, even with recomputed checksums) is refused with "the
archive was changed after it was written"; one whose signature cannot be checked (no CORE_BACKUP_KEY, an unsigned
archive, or one written under another key) is refused unless the body says {"acceptUnverified": true}, and is then
restored without any of its secrets. The finished record's details say verified, secretsRestored, secretsNotRestored
(names such as settings.jwt_secret, services.notifications.password, services.ad-sync.bindPassword,
users.password_hash), notes (what became of each: a new JWT secret and survey respondent secret are generated, SMTP and
LDAP passwords are left empty, local accounts keep no password until one is set with coreportal user set-password) and
administrators (the administrators' logins the archive brings). The runner then puts the service in maintenance (writes answer 503
UNAVAILABLE) and replaces the database content and blobs in one transaction. Maintenance starts as soon as the runner
takes the record, before the verification (on other API instances within a second); a refused archive ends it with
nothing changed. The backup journal, the application log and instance figures are kept; the audit log is append-only
and is merged: records written after the backup stay, the archive's records come back, and the restore itself is
recorded. The search index is not archived: the restore empties it and, in the same transaction, queues a
searchCrawler.run job (the search-crawler service) that rebuilds it; until that job finishes, GET /search and the
listing q filter return partial results (resources saved after the restore are indexed at once). Works across databases: an archive of the embedded SQLite database restores into
PostgreSQL and back (also offline: coreportal restore --from FILE). The schema version of the archive must equal the
database's. Restart the API instances afterwards so that no cache holds pre-restore data.` + idDoc
	web.Register(api, web.Answers(r, http.StatusAccepted), h.restore)
	g := web.Op(http.MethodGet, "/admin/backups/{id}", "getBackup", "One journal record", web.Admin, "admin-backups")
	g.Description += idDoc
	web.Register(api, g, h.get)
	d := web.Op(http.MethodDelete, "/admin/backups/{id}", "deleteBackup", "Delete a journal record and its file (409 while it runs)", web.Admin, "admin-backups")
	d.Description += idDoc
	web.Register(api, d, h.delete)
}

func (h *Handler) getSettings(ctx context.Context, _ *struct{}) (*web.Out[BackupStatus], error) {
	return web.Reply(h.svc.Status(ctx))
}

// BackupSettingsPut is the body of PUT /admin/settings/backup; the read-only
// properties of the GET (dir, runner and copy status, maintenance, ...) are
// accepted and ignored.
type BackupSettingsPut struct {
	web.ReadOnlyFrom[BackupStatus]
	BackupSettings
}

type putIn struct{ Body BackupSettingsPut }

func (h *Handler) putSettings(ctx context.Context, in *putIn) (*web.Out[BackupStatus], error) {
	if _, err := h.svc.SaveSettings(ctx, in.Body.BackupSettings); err != nil {
		return nil, err
	}
	return web.Reply(h.svc.Status(ctx))
}

// BackupNoOptions is the body of an action that takes none: absent, or a JSON
// object without fields; malformed JSON or another type is 400.
type BackupNoOptions struct{}

type actionIn struct {
	Body *BackupNoOptions
}

func (h *Handler) validate(ctx context.Context, _ *actionIn) (*web.Out[*BackupRecord], error) {
	return web.ReplyAccepted(h.svc.Queue(ctx, "validate", ""))
}

func (h *Handler) list(ctx context.Context, in *web.PageQuery) (*web.PagedOut[[]*BackupRecord, web.PageMeta], error) {
	rows, total, err := h.svc.List(ctx, in.Offset(), in.Limit)
	if err != nil {
		return nil, err
	}
	return web.Paged(rows, web.NewPageMeta(*in, total)), nil
}

func (h *Handler) queue(ctx context.Context, _ *actionIn) (*web.Out[*BackupRecord], error) {
	return web.ReplyAccepted(h.svc.Queue(ctx, "backup", ""))
}

func (h *Handler) restorable(ctx context.Context, _ *struct{}) (*web.Out[[]*BackupRecord], error) {
	return web.Reply(h.svc.Restorable(ctx))
}

type idIn struct {
	ID string `path:"id" maxLength:"40"`
}

// RestoreBody is the optional body of a restore.
type RestoreBody struct {
	AcceptUnverified bool `json:"acceptUnverified,omitempty" doc:"restore an archive whose manifest signature cannot be checked (CORE_BACKUP_KEY not set, an unsigned archive, or one written under another key): its data as it is and none of its secrets; default false (such an archive is refused). An archive whose signature does not match under the configured key is refused regardless."`
}

type restoreIn struct {
	ID   string `path:"id" maxLength:"40"`
	Body *RestoreBody
}

func (h *Handler) restore(ctx context.Context, in *restoreIn) (*web.Out[*BackupRecord], error) {
	var opts RestoreOptions
	if in.Body != nil {
		opts.AcceptUnverified = in.Body.AcceptUnverified
	}
	r, err := h.svc.QueueRestore(ctx, in.ID, opts)
	if err == nil {
		audit.Record(ctx, audit.Entry{Action: audit.BackupRestore, ResourceType: "backup", ResourceID: in.ID, Details: map[string]any{"queued": r.ID}})
	}
	return web.ReplyAccepted(r, err)
}

func (h *Handler) get(ctx context.Context, in *idIn) (*web.Out[*BackupRecord], error) {
	return web.Reply(h.svc.Get(ctx, in.ID))
}

func (h *Handler) delete(ctx context.Context, in *idIn) (*web.Out[any], error) {
	if err := h.svc.Delete(ctx, in.ID); err != nil {
		return nil, err
	}
	return web.Empty(), nil
}
