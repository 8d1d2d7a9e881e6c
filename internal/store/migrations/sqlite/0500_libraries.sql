-- Document libraries: metadata, custom fields, files and folders, file versions.
-- Custom field values of a file are one JSON object (field UUID -> value) in
-- library_files.field_values: files are listed by folder and sorted by system
-- columns only, so typed per-library columns would buy nothing here.
CREATE TABLE libraries (
    id          TEXT PRIMARY KEY,
    node_id     TEXT NOT NULL,
    slug        TEXT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    next_number BIGINT NOT NULL DEFAULT 1,
    created_by  TEXT,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL,
    deleted_at  TIMESTAMP
);
CREATE UNIQUE INDEX libraries_node_slug ON libraries(node_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX libraries_node ON libraries(node_id);

CREATE TABLE library_fields (
    id            TEXT PRIMARY KEY,
    library_id    TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    internal_name TEXT NOT NULL,
    title         TEXT NOT NULL,
    field_type    TEXT NOT NULL,
    is_required   BOOLEAN NOT NULL DEFAULT 0,
    sort_order    INTEGER NOT NULL DEFAULT 0,
    settings      TEXT NOT NULL DEFAULT '{}',
    created_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX library_fields_name ON library_fields(library_id, internal_name);

-- parent_no is the number of the parent folder (0 = library root); name_key is
-- the name lower-cased in Go (Unicode-aware), unique per folder among live rows.
-- trash_id is the recycle-bin entry that took the row (with its subtree).
CREATE TABLE library_files (
    guid            TEXT PRIMARY KEY,
    library_id      TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    number          BIGINT NOT NULL,
    parent_no       BIGINT NOT NULL DEFAULT 0,
    name            TEXT NOT NULL,
    name_key        TEXT NOT NULL,
    is_folder       BOOLEAN NOT NULL,
    file_size       BIGINT NOT NULL DEFAULT 0,
    mime_type       TEXT NOT NULL DEFAULT '',
    blob_key        TEXT NOT NULL DEFAULT '',
    version_id      TEXT NOT NULL DEFAULT '',
    field_values    TEXT NOT NULL DEFAULT '{}',
    inherits_permissions BOOLEAN NOT NULL DEFAULT 1,
    created_by      TEXT,
    updated_by      TEXT,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    deleted_at      TIMESTAMP,
    trash_id        TEXT
);
CREATE UNIQUE INDEX library_files_number ON library_files(library_id, number);
CREATE UNIQUE INDEX library_files_name ON library_files(library_id, parent_no, name_key) WHERE deleted_at IS NULL;
CREATE INDEX library_files_by_name ON library_files(library_id, parent_no, is_folder, name_key, number) WHERE deleted_at IS NULL;
CREATE INDEX library_files_by_size ON library_files(library_id, parent_no, is_folder, file_size, number) WHERE deleted_at IS NULL;
CREATE INDEX library_files_by_modified ON library_files(library_id, parent_no, is_folder, updated_at, number) WHERE deleted_at IS NULL;
CREATE INDEX library_files_trash ON library_files(trash_id) WHERE trash_id IS NOT NULL;

-- Every upload of a file's bytes is a version; the file row names the current one.
CREATE TABLE library_file_versions (
    id             TEXT PRIMARY KEY,
    file_guid      TEXT NOT NULL REFERENCES library_files(guid) ON DELETE CASCADE,
    version_number INTEGER NOT NULL,
    file_size      BIGINT NOT NULL,
    mime_type      TEXT NOT NULL,
    blob_key       TEXT NOT NULL,
    created_by     TEXT,
    created_at     TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX library_file_versions_number ON library_file_versions(file_guid, version_number);
