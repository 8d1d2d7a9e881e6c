-- The requires of the installed version: an upgrade of a module that an
-- installed module constrains (acme.lib@<2.0.0) is refused.
ALTER TABLE modules ADD COLUMN requires TEXT NOT NULL DEFAULT '[]';
