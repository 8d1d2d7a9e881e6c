CREATE TABLE jobs (
    id           TEXT PRIMARY KEY,
    type         TEXT NOT NULL,
    status       TEXT NOT NULL,
    payload      TEXT NOT NULL,
    result       TEXT,
    error        TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    actor_id     TEXT,
    order_key    TEXT,
    order_seq    INTEGER NOT NULL DEFAULT 0,
    run_at       TIMESTAMP NOT NULL,
    locked_by    TEXT,
    locked_until TIMESTAMP,
    created_at   TIMESTAMP NOT NULL,
    started_at   TIMESTAMP,
    completed_at TIMESTAMP
);
CREATE INDEX jobs_claim ON jobs(status, run_at);
CREATE INDEX jobs_order ON jobs(order_key, order_seq) WHERE order_key IS NOT NULL;
CREATE INDEX jobs_type_created ON jobs(type, created_at);
CREATE INDEX jobs_completed ON jobs(completed_at) WHERE completed_at IS NOT NULL;

CREATE TABLE services (
    key             TEXT PRIMARY KEY,
    is_enabled      BOOLEAN NOT NULL,
    cron_enabled    BOOLEAN NOT NULL,
    cron_expression TEXT NOT NULL DEFAULT '',
    config          TEXT NOT NULL DEFAULT '{}',
    cron_last_tick  INTEGER,
    updated_at      TIMESTAMP NOT NULL
);

CREATE TABLE event_receivers (
    id          TEXT PRIMARY KEY,
    event_name  TEXT NOT NULL,
    title       TEXT NOT NULL,
    service_key TEXT NOT NULL,
    job_type    TEXT NOT NULL,
    config      TEXT NOT NULL,
    list_id     TEXT,
    created_by  TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at  TIMESTAMP NOT NULL
);
CREATE INDEX event_receivers_event ON event_receivers(event_name, list_id);
