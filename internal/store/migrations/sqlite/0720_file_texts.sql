-- Text extracted from library files by the search.extractText job, for the
-- version it was extracted from (a newer version's index entry never shows
-- an older version's text). error is set when extraction failed; the row
-- then stops the crawler from queueing that version again.
CREATE TABLE file_texts (
    file_guid    TEXT PRIMARY KEY REFERENCES library_files(guid) ON DELETE CASCADE,
    version_id   TEXT NOT NULL,
    text         TEXT NOT NULL DEFAULT '',
    error        TEXT NOT NULL DEFAULT '',
    extracted_at TIMESTAMP NOT NULL
);
