-- Nothing to do on SQLite: cp_lower is registered in Go on every connection
-- (PostgreSQL's counterpart is made collation-proof in this migration).
SELECT 1;
