-- (SQLite only: a covering index for the ranking pass; PostgreSQL reads the
-- tsvector of each match for ts_rank anyway.)
SELECT 1;
