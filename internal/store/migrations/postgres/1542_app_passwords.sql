-- App passwords (package apppass): per-user secrets for WebDAV and scripts,
-- stored as SHA-256 of the whole (high-entropy) password. Revocation deletes
-- the row; every use reads it, so revocation holds on every instance at once.
CREATE TABLE app_passwords (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL,
    hash         TEXT NOT NULL,
    addresses    TEXT NOT NULL DEFAULT '[]',
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ
);
CREATE INDEX app_passwords_user ON app_passwords(user_id, created_at);
