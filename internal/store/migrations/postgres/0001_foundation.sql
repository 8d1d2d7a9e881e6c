CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
    id                  UUID PRIMARY KEY,
    login               TEXT NOT NULL,
    login_norm          TEXT NOT NULL UNIQUE,
    display_name        TEXT NOT NULL DEFAULT '',
    email               TEXT NOT NULL DEFAULT '',
    search_text         TEXT NOT NULL DEFAULT '',
    auth_source         TEXT NOT NULL DEFAULT 'local',
    password_hash       TEXT,
    is_active           BOOLEAN NOT NULL DEFAULT TRUE,
    is_core_admin       BOOLEAN NOT NULL DEFAULT FALSE,
    is_seed_admin       BOOLEAN NOT NULL DEFAULT FALSE,
    is_system           BOOLEAN NOT NULL DEFAULT FALSE,
    external_id         TEXT,
    directory_attrs     JSONB NOT NULL DEFAULT '{}',
    manager_dn          TEXT,
    manager_user_id     UUID REFERENCES users(id) ON DELETE SET NULL,
    avatar_hash         TEXT,
    avatar_content_type TEXT,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_external_id ON users(external_id) WHERE external_id IS NOT NULL;
CREATE INDEX users_manager ON users(manager_user_id);

CREATE TABLE outbox (
    id            BIGSERIAL PRIMARY KEY,
    event_name    TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL,
    scope_id      TEXT,
    actor_id      UUID,
    payload       JSONB NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    dispatched_at TIMESTAMPTZ
);
CREATE INDEX outbox_pending ON outbox(id) WHERE dispatched_at IS NULL;
