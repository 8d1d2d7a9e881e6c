-- App passwords (package apppass): per-user secrets for WebDAV and scripts,
-- stored as SHA-256 of the whole (high-entropy) password. Revocation deletes
-- the row; every use reads it, so revocation holds on every instance at once.
-- token_version is the owner's users.token_version at creation: a password
-- change, reset or deactivation moves it on and the app password stops working.
CREATE TABLE app_passwords (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL,
    hash         TEXT NOT NULL,
    addresses    TEXT NOT NULL DEFAULT '[]',
    token_version INTEGER NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL,
    last_used_at TIMESTAMPTZ
);
CREATE INDEX app_passwords_user ON app_passwords(user_id, created_at);
