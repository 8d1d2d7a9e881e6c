CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

CREATE TABLE users (
    id                  TEXT PRIMARY KEY,
    login               TEXT NOT NULL,
    login_norm          TEXT NOT NULL UNIQUE,
    display_name        TEXT NOT NULL DEFAULT '',
    email               TEXT NOT NULL DEFAULT '',
    search_text         TEXT NOT NULL DEFAULT '',
    auth_source         TEXT NOT NULL DEFAULT 'local',
    password_hash       TEXT,
    is_active           BOOLEAN NOT NULL DEFAULT 1,
    is_core_admin       BOOLEAN NOT NULL DEFAULT 0,
    is_seed_admin       BOOLEAN NOT NULL DEFAULT 0,
    is_system           BOOLEAN NOT NULL DEFAULT 0,
    external_id         TEXT,
    directory_attrs     TEXT NOT NULL DEFAULT '{}',
    manager_dn          TEXT,
    manager_user_id     TEXT REFERENCES users(id) ON DELETE SET NULL,
    avatar_hash         TEXT,
    avatar_content_type TEXT,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX users_external_id ON users(external_id) WHERE external_id IS NOT NULL;
CREATE INDEX users_manager ON users(manager_user_id);

CREATE TABLE outbox (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    event_name    TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    scope_id      TEXT,
    actor_id      TEXT,
    payload       TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    dispatched_at TIMESTAMP
);
CREATE INDEX outbox_pending ON outbox(id) WHERE dispatched_at IS NULL;
