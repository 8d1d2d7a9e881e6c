-- cp_lower(text): the case folding of list listings, the same
-- name as the function registered on SQLite connections. lower() of the
-- database's UTF-8 character type folds Cyrillic as Go's strings.ToLower.
CREATE OR REPLACE FUNCTION cp_lower(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT lower($1)';
