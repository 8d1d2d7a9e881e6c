-- Lists: metadata here; each list's items live in their own table li_<hex of list id>
-- with one typed column per field (created by the lists service, not by migrations).
CREATE TABLE lists (
    id                 uuid PRIMARY KEY,
    node_id            uuid NOT NULL,
    slug               TEXT NOT NULL,
    title              TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    form_config        TEXT NOT NULL DEFAULT '{}',
    versioning_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    search_enabled     BOOLEAN NOT NULL DEFAULT TRUE,
    table_name         TEXT NOT NULL UNIQUE,
    next_col           INTEGER NOT NULL DEFAULT 1,
    created_by         TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL,
    deleted_at         TIMESTAMPTZ
);
CREATE UNIQUE INDEX lists_node_slug ON lists(node_id, slug) WHERE deleted_at IS NULL;

CREATE TABLE list_fields (
    id            uuid PRIMARY KEY,
    list_id       uuid NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    internal_name TEXT NOT NULL,
    title         TEXT NOT NULL,
    field_type    TEXT NOT NULL,
    is_required   BOOLEAN NOT NULL DEFAULT FALSE,
    sort_order    INTEGER NOT NULL DEFAULT 0,
    settings      TEXT NOT NULL DEFAULT '{}',
    col           INTEGER NOT NULL,
    is_system     BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TIMESTAMPTZ NOT NULL,
    UNIQUE (list_id, internal_name)
);

CREATE TABLE list_views (
    id         uuid PRIMARY KEY,
    list_id    uuid NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    config     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX list_views_list ON list_views(list_id);

CREATE TABLE list_item_versions (
    id             uuid PRIMARY KEY,
    list_id        uuid NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    item_guid      uuid NOT NULL,
    version_number INTEGER NOT NULL,
    change_type    TEXT NOT NULL,
    field_values   TEXT NOT NULL,
    changes        TEXT,
    changed_by     TEXT,
    created_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (item_guid, version_number)
);

CREATE TABLE list_attachments (
    id           uuid PRIMARY KEY,
    list_id      uuid NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
    item_guid    uuid NOT NULL,
    file_name    TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size         BIGINT NOT NULL,
    blob_key     TEXT NOT NULL,
    created_by   TEXT,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX list_attachments_item ON list_attachments(item_guid);
