-- Search query speed: the FTS5 rowid (search_entries.seq) now
-- orders entries newest first (seq = updated_at in milliseconds * 2^21 +
-- a slot), so a page of results is read in the order of the full-text
-- index and stops after the page. Entries written before keep their old
-- seq until they are indexed again: a full crawl is queued (only when the
-- index holds anything); until it finishes results are complete but their
-- order within a tier may be off.
INSERT INTO jobs (id, type, status, payload, error, attempts, max_attempts, run_at, created_at)
SELECT lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
    'searchCrawler.run', 'pending', '{"serviceKey":"search-crawler","trigger":"upgrade"}', '', 0, 5,
    strftime('%Y-%m-%d %H:%M:%f+00:00','now'), strftime('%Y-%m-%d %H:%M:%f+00:00','now')
WHERE EXISTS (SELECT 1 FROM search_entries);
