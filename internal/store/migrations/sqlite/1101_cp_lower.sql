-- cp_lower(text) is registered on every SQLite connection in Go
-- (internal/store/sqlitefuncs.go); nothing to create here.
SELECT 1;
