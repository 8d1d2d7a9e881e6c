-- Installed modules (SPEC.md "Module record"): one row per module key with
-- the version in force, the uuids of what it created and its install log.
CREATE TABLE modules (
    module_key   TEXT PRIMARY KEY,
    version      TEXT NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    source       TEXT NOT NULL DEFAULT '',
    installed_at TIMESTAMPTZ NOT NULL,
    installed_by TEXT NOT NULL DEFAULT '',
    updated_at   TIMESTAMPTZ NOT NULL,
    resource_map JSONB NOT NULL DEFAULT '{}',
    install_log  JSONB NOT NULL DEFAULT '[]'
);
