-- The securable resource a recycle-bin entry holds (its acl_objects id: the
-- item, file, list, library, page or survey as it was), so that the bin lists
-- an entry only to callers who could view that resource, its own isolation
-- included. Empty: the entry follows its scope's rights.
ALTER TABLE recycle_bin ADD COLUMN resource_id TEXT NOT NULL DEFAULT '';
