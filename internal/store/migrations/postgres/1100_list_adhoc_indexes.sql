-- Listing speed: indexes built on first ad-hoc use of a column
-- (internal/lists/adhoc.go), with the time they were last wanted, so that
-- those unused for 30 days are dropped again.
CREATE TABLE list_adhoc_indexes (
    name         TEXT PRIMARY KEY,
    list_id      UUID NOT NULL,
    last_used_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX list_adhoc_indexes_used ON list_adhoc_indexes(last_used_at);
