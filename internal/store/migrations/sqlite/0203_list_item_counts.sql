-- The number of items of each list, kept by triggers on the list's item table
-- (created with the table, or on first use for older lists) so that an
-- unfiltered listing does not count every row. One writer: a single shard.
-- A list without rows here is not counted yet.
CREATE TABLE list_item_counts (
    list_id TEXT NOT NULL,
    shard   INTEGER NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (list_id, shard)
);
