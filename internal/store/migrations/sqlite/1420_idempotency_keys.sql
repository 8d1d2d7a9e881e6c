-- Idempotency-Key of creating POSTs (package idempotency): the first answer
-- per user and key, kept 24 h.
CREATE TABLE idempotency_keys (
    user_id      TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    request      TEXT NOT NULL,
    body_hash    TEXT,
    state        TEXT NOT NULL,
    saved        BOOLEAN NOT NULL DEFAULT FALSE,
    locked_until TIMESTAMP NOT NULL,
    status       INTEGER,
    content_type TEXT,
    location     TEXT,
    body         TEXT,
    created_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, idem_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
