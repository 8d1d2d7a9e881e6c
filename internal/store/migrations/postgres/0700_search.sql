-- Search: one index of every searchable resource (items, files, pages, nodes,
-- lists, libraries, surveys). tsv holds the title (weight A) and the body
-- (weight B) through the russian and english configurations, built from text
-- already lower-cased with ё folded to е.
CREATE TABLE search_entries (
    id           UUID PRIMARY KEY,          -- the resource's access-control id
    type         TEXT NOT NULL,             -- item, file, page, node, list, library, survey
    node_id      UUID NOT NULL,
    container_id UUID NOT NULL,             -- list, library, page, survey or node: the rights scope
    number       BIGINT,                    -- item or file number
    boundary     UUID,                      -- nearest isolated resource between the entry and its container
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    path         TEXT NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    tsv          TSVECTOR NOT NULL
);
CREATE INDEX search_entries_tsv ON search_entries USING GIN (tsv);
CREATE INDEX search_entries_container ON search_entries(container_id);
CREATE INDEX search_entries_boundary ON search_entries(boundary) WHERE boundary IS NOT NULL;

-- One row: last finished crawl and the checkpoint of a running one.
CREATE TABLE search_state (
    id            INTEGER PRIMARY KEY,
    last_crawl_at TIMESTAMPTZ,
    checkpoint    TEXT NOT NULL DEFAULT ''
);
INSERT INTO search_state (id, checkpoint) VALUES (1, '');
