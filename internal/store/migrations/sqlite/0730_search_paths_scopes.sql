-- Search: paths are composed when results are read (node slug path + the
-- container slug kept here), so renaming or moving a node needs no update of
-- the entries below it and renaming a list or library updates one column.
ALTER TABLE search_entries ADD COLUMN slug TEXT NOT NULL DEFAULT '';
UPDATE search_entries SET slug = substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) WHERE type <> 'node';
UPDATE search_entries SET slug = substr(slug, 1, instr(slug, '?') - 1) WHERE instr(slug, '?') > 0;
ALTER TABLE search_entries DROP COLUMN path;

-- The access-control objects strictly between an entry and its container
-- (folders), up to and including the nearest isolated one: a grant on any of
-- them lets a user view the entry, as the acl engine decides.
CREATE TABLE search_scopes (
    entry_id  TEXT NOT NULL,
    object_id TEXT NOT NULL,
    PRIMARY KEY (entry_id, object_id)
) WITHOUT ROWID;
CREATE INDEX search_scopes_object ON search_scopes(object_id);
