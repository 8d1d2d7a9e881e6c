-- Pages: HTML content of a node, sanitised on write; soft-deleted to the
-- recycle bin (deleted_at), so slugs are unique among live pages only.
CREATE TABLE pages (
    id         TEXT PRIMARY KEY,
    node_id    TEXT NOT NULL,
    slug       TEXT NOT NULL,
    title      TEXT NOT NULL,
    content    TEXT NOT NULL DEFAULT '',
    created_by TEXT,
    updated_by TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deleted_at TIMESTAMP
);
CREATE UNIQUE INDEX pages_node_slug ON pages(node_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX pages_node_title ON pages(node_id, title, id) WHERE deleted_at IS NULL;
