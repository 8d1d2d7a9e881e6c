-- A user's own interface preferences (PATCH /auth/me/preferences): the
-- console's language (ru, en) and an IANA time zone; NULL follows the
-- browser.
ALTER TABLE users ADD COLUMN language TEXT;
ALTER TABLE users ADD COLUMN time_zone TEXT;
