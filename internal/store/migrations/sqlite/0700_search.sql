-- Search: one index of every searchable resource (items, files, pages, nodes,
-- lists, libraries, surveys). search_fts is contentless: it holds the tokens
-- stemmed in Go (Snowball russian/english, ё folded to е), rowid = seq.
CREATE TABLE search_entries (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,      -- the resource's access-control id
    type         TEXT NOT NULL,
    node_id      TEXT NOT NULL,
    container_id TEXT NOT NULL,
    number       INTEGER,
    boundary     TEXT,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    path         TEXT NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);
CREATE INDEX search_entries_container ON search_entries(container_id);
CREATE INDEX search_entries_boundary ON search_entries(boundary) WHERE boundary IS NOT NULL;
CREATE VIRTUAL TABLE search_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');

CREATE TABLE search_state (
    id            INTEGER PRIMARY KEY,
    last_crawl_at TIMESTAMP,
    checkpoint    TEXT NOT NULL DEFAULT ''
);
INSERT INTO search_state (id, checkpoint) VALUES (1, '');
