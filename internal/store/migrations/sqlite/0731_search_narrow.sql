-- The ranking pass of a search reads, for every match, only what the rights
-- filter and the order need: from this covering index (looked up by seq, the
-- FTS rowid) instead of the table rows, whose title and body overflow pages.
CREATE INDEX search_entries_narrow ON search_entries(seq, id, type, node_id, container_id, boundary, updated_at);
