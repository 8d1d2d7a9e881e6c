CREATE TABLE update_jobs (
    id           UUID PRIMARY KEY,
    status       TEXT NOT NULL,
    phase        TEXT NOT NULL,
    active_slot  TEXT UNIQUE,
    from_version TEXT NOT NULL,
    to_version   TEXT NOT NULL,
    channel      TEXT NOT NULL,
    platform     TEXT NOT NULL,
    message      TEXT NOT NULL DEFAULT '',
    created_by   UUID,
    created_at   TIMESTAMPTZ NOT NULL,
    started_at   TIMESTAMPTZ,
    completed_at TIMESTAMPTZ
);
CREATE INDEX update_jobs_created ON update_jobs(created_at);
