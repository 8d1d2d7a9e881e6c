-- Service accounts and their API tokens (package servicetokens). A service
-- account is a users row marked here; a token is kept as its SHA-256 only.
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
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    created_by   UUID,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX service_tokens_user ON service_tokens(user_id);
