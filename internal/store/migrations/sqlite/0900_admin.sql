CREATE TABLE audit_log (
    id            TEXT PRIMARY KEY,
    at            TIMESTAMP NOT NULL,
    actor_id      TEXT,
    actor_login   TEXT NOT NULL DEFAULT '',
    actor_address TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,
    resource_type TEXT NOT NULL DEFAULT '',
    resource_id   TEXT NOT NULL DEFAULT '',
    outcome       TEXT NOT NULL DEFAULT 'success',
    details       TEXT NOT NULL DEFAULT '{}',
    correlation_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at ON audit_log(at);
CREATE INDEX audit_log_action ON audit_log(action, at);
CREATE INDEX audit_log_resource ON audit_log(resource_type, resource_id, at);
CREATE INDEX audit_log_actor ON audit_log(actor_id, at);

CREATE TABLE app_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             TIMESTAMP NOT NULL,
    level          TEXT NOT NULL,
    level_num      INTEGER NOT NULL,
    process        TEXT NOT NULL,
    instance       TEXT NOT NULL DEFAULT '',
    category       TEXT NOT NULL,
    message        TEXT NOT NULL,
    correlation_id TEXT NOT NULL DEFAULT '',
    job_id         TEXT NOT NULL DEFAULT '',
    attrs          TEXT NOT NULL DEFAULT '{}',
    size           INTEGER NOT NULL
);
CREATE INDEX app_log_at ON app_log(at);
CREATE INDEX app_log_level ON app_log(level_num, id);
CREATE INDEX app_log_correlation ON app_log(correlation_id) WHERE correlation_id <> '';
CREATE INDEX app_log_job ON app_log(job_id) WHERE job_id <> '';
