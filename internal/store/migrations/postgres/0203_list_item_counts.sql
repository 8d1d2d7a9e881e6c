-- The number of items of each list, kept by triggers on the list's item table
-- (created with the table, or on first use for older lists) so that an
-- unfiltered listing does not count a million rows. Writers add to the shard of
-- their backend, so concurrent item creation does not queue on one row; the
-- count is the sum of the shards. A list without rows here is not counted yet.
CREATE TABLE list_item_counts (
    list_id uuid NOT NULL,
    shard   INTEGER NOT NULL,
    n       BIGINT NOT NULL,
    PRIMARY KEY (list_id, shard)
);

-- Statement-level: one update per INSERT or DELETE statement, however many rows.
CREATE FUNCTION list_items_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT count(*) INTO d FROM new_items;
    ELSE
        SELECT -count(*) INTO d FROM old_items;
    END IF;
    IF d <> 0 THEN
        INSERT INTO list_item_counts (list_id, shard, n) VALUES (TG_ARGV[0]::uuid, pg_backend_pid() % 16, d)
        ON CONFLICT (list_id, shard) DO UPDATE SET n = list_item_counts.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END $$;
