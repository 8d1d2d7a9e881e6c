CREATE TABLE jobs (
    id           UUID PRIMARY KEY,
    type         TEXT NOT NULL,
    status       TEXT NOT NULL,
    payload      JSONB NOT NULL,
    result       JSONB,
    error        TEXT NOT NULL DEFAULT '',
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    actor_id     UUID,
    order_key    TEXT,
    order_seq    BIGINT NOT NULL DEFAULT 0,
    run_at       TIMESTAMPTZ NOT NULL,
    locked_by    TEXT,
    locked_until TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL,
    started_at   TIMESTAMPTZ,
    completed_at TIMESTAMPTZ
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
    config          JSONB NOT NULL DEFAULT '{}',
    cron_last_tick  BIGINT,
    updated_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE event_receivers (
    id          UUID PRIMARY KEY,
    event_name  TEXT NOT NULL,
    title       TEXT NOT NULL,
    service_key TEXT NOT NULL,
    job_type    TEXT NOT NULL,
    config      JSONB NOT NULL,
    list_id     TEXT,
    created_by  UUID REFERENCES users(id) ON DELETE SET NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX event_receivers_event ON event_receivers(event_name, list_id);
