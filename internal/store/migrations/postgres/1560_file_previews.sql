-- Preview of one file version, made by the libraries.preview job: a PNG
-- image and, for Office documents, the first page as PDF. A row with error
-- set records that the version gets no preview (and why). Rows go with
-- their version (purge of the file or library).
CREATE TABLE file_previews (
    version_id uuid PRIMARY KEY REFERENCES library_file_versions(id) ON DELETE CASCADE,
    png        BYTEA,
    pdf        BYTEA,
    error      TEXT NOT NULL DEFAULT '',
    made_at    TIMESTAMPTZ NOT NULL
);
