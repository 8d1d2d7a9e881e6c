-- Lists: metadata here; each list's items live in their own table li_<hex of list id>
-- with one typed column per field (created by the lists service, not by migrations).
CREATE TABLE lists (
    id                 TEXT PRIMARY KEY,
    node_id            TEXT NOT NULL,
    slug               TEXT NOT NULL,
    title              TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    form_config        TEXT NOT NULL DEFAULT '{}',
    versioning_enabled BOOLEAN NOT NULL DEFAULT 0,
    search_enabled     BOOLEAN NOT NULL DEFAULT 1,
    table_name         TEXT NOT NULL UNIQUE,
    next_col           INTEGER NOT NULL DEFAULT 1,
    created_by         TEXT,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL,
    deleted_at         TIMESTAMP
);
CREATE UNIQUE INDEX lists_node_slug ON lists(node_id, slug) WHERE deleted_at IS NULL;

CREATE TABLE list_fields (
    id            TEXT PRIMARY KEY,
    list_id       TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    internal_name TEXT NOT NULL,
    title         TEXT NOT NULL,
    field_type    TEXT NOT NULL,
    is_required   BOOLEAN NOT NULL DEFAULT 0,
    sort_order    INTEGER NOT NULL DEFAULT 0,
    settings      TEXT NOT NULL DEFAULT '{}',
    col           INTEGER NOT NULL,
    is_system     BOOLEAN NOT NULL DEFAULT 0,
    created_at    TIMESTAMP NOT NULL,
    UNIQUE (list_id, internal_name)
);

CREATE TABLE list_views (
    id         TEXT PRIMARY KEY,
    list_id    TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT 0,
    config     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX list_views_list ON list_views(list_id);

CREATE TABLE list_item_versions (
    id             TEXT PRIMARY KEY,
    list_id        TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    item_guid      TEXT NOT NULL,
    version_number INTEGER NOT NULL,
    change_type    TEXT NOT NULL,
    field_values   TEXT NOT NULL,
    changes        TEXT,
    changed_by     TEXT,
    created_at     TIMESTAMP NOT NULL,
    UNIQUE (item_guid, version_number)
);

CREATE TABLE list_attachments (
    id           TEXT PRIMARY KEY,
    list_id      TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    item_guid    TEXT NOT NULL,
    file_name    TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         INTEGER NOT NULL,
    blob_key     TEXT NOT NULL,
    created_by   TEXT,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX list_attachments_item ON list_attachments(item_guid);
