-- Pages: HTML content of a node, sanitised on write; soft-deleted to the
-- recycle bin (deleted_at), so slugs are unique among live pages only.
CREATE TABLE pages (
    id         uuid PRIMARY KEY,
    node_id    uuid NOT NULL,
    slug       TEXT NOT NULL,
    title      TEXT NOT NULL,
    content    TEXT NOT NULL DEFAULT '',
    created_by TEXT,
    updated_by TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    deleted_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX pages_node_slug ON pages(node_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX pages_node_title ON pages(node_id, title, id) WHERE deleted_at IS NULL;
