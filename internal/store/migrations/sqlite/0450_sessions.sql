-- Revoked tokens (sign-out): the jti of each token, kept until the token
-- expires. Times are Unix milliseconds so that both dialects compare alike.
CREATE TABLE revoked_tokens (
    jti        TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT NOT NULL
);
CREATE INDEX revoked_tokens_revoked_at ON revoked_tokens(revoked_at);
CREATE INDEX revoked_tokens_expires_at ON revoked_tokens(expires_at);

-- Failed sign-in counters, shared by every instance. key is
-- "p:<login>|<address>", "l:<login>" or "a:<address>"; failures counts within
-- the window that started at window_start; no attempt on the key is allowed
-- before next_at (the per-login exponential delay). Unix milliseconds.
CREATE TABLE login_throttle (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    window_start BIGINT NOT NULL,
    next_at      BIGINT NOT NULL
);
CREATE INDEX login_throttle_window_start ON login_throttle(window_start);
