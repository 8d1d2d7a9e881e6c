-- Service accounts and their API tokens (package servicetokens). A service
-- account is a users row marked here; a token is kept as its SHA-256 only.
-- token_version is the account's users.token_version at issue: deactivating
-- the account moves it on, so its tokens do not come back on reactivation.
CREATE TABLE service_accounts (
    user_id    UUID PRIMARY KEY,
    created_by UUID,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE service_tokens (
    id           UUID PRIMARY KEY,
    user_id      UUID NOT NULL,
    name         TEXT NOT NULL,
    scope        TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    prefix       TEXT NOT NULL,
    token_version INTEGER NOT NULL DEFAULT 0,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    created_by   UUID,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX service_tokens_user ON service_tokens(user_id);
