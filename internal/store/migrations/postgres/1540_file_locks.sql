-- File locks (package filelock): WebDAV and WOPI locks of library files,
-- shared by every instance. One live lock per file (exclusive locks only);
-- an expired row is replaced by the next lock of the file.
CREATE TABLE file_locks (
    token      TEXT PRIMARY KEY,
    file_id    TEXT NOT NULL,
    holder     TEXT NOT NULL,
    kind       TEXT NOT NULL,
    deep       BOOLEAN NOT NULL DEFAULT FALSE,
    path       TEXT NOT NULL DEFAULT '',
    owner      TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX file_locks_file ON file_locks(file_id);
CREATE INDEX file_locks_expires ON file_locks(expires_at);
