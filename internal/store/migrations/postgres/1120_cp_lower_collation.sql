-- cp_lower folds with the database's character type whatever the collation
-- of its argument: item table text columns are COLLATE "C" (binary order and
-- prefix ranges, as on SQLite), and lower() under "C" would fold ASCII only.
-- The result keeps the argument's collation, so cp_lower(f_n) of a "C"
-- column sorts and compares by code point. Same results for the columns the
-- function was used on before (default collation), so no index changes.
CREATE OR REPLACE FUNCTION cp_lower(text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS 'SELECT lower($1 COLLATE "default")';
