-- The backup journal: validate, backup and restore runs, queued by the API
-- and executed by the backup runner. Never part of a backup or a restore.
CREATE TABLE backups (
    id          UUID PRIMARY KEY,
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,
    file_name   TEXT NOT NULL DEFAULT '',
    size        BIGINT NOT NULL DEFAULT 0,
    source_id   TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT '',
    details     TEXT NOT NULL DEFAULT '{}',
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    started_at  TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
);
CREATE INDEX backups_status ON backups(status, created_at);
CREATE INDEX backups_kind ON backups(kind, status, created_at);
