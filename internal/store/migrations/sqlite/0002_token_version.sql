-- A password change (or "sign out everywhere") bumps token_version; tokens carry
-- the version they were issued with and older ones stop working.
ALTER TABLE users ADD COLUMN token_version INTEGER NOT NULL DEFAULT 0;
