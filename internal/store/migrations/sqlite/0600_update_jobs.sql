CREATE TABLE update_jobs (
    id           TEXT PRIMARY KEY,
    status       TEXT NOT NULL,
    phase        TEXT NOT NULL,
    active_slot  TEXT UNIQUE,
    from_version TEXT NOT NULL,
    to_version   TEXT NOT NULL,
    channel      TEXT NOT NULL,
    platform     TEXT NOT NULL,
    message      TEXT NOT NULL DEFAULT '',
    created_by   TEXT,
    created_at   TIMESTAMP NOT NULL,
    started_at   TIMESTAMP,
    completed_at TIMESTAMP
);
CREATE INDEX update_jobs_created ON update_jobs(created_at);
