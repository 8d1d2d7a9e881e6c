-- Directory (ad-sync): the DN of a synchronised user (manager DNs resolve
-- against it) and whether the sync deactivated the account (only those are
-- reactivated when they come back into the sync selection).
ALTER TABLE users ADD COLUMN directory_dn TEXT;
ALTER TABLE users ADD COLUMN directory_deactivated BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX users_directory_dn ON users(directory_dn) WHERE directory_dn IS NOT NULL;
