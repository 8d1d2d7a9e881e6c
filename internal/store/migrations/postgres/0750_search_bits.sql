-- Search totals: an exact count of the matches a caller can view
-- must not read a heap row per match (PostgreSQL 15 has no index-only count
-- over GIN). Every entry gets a bit number; search_bits holds, per term and
-- chunk of 65,536 bit numbers, a roaring bitmap of the entries with that
-- term: lexemes (with the '^' title markers) and the rights and filter terms
-- '~a' (alive), '~u' (no isolated object between the entry and its
-- container), '~c<container>', '~t<type>', '~n<node>'. Entries written since
-- their bits were folded in are listed in search_bits_pending (a trigger
-- keeps it in step with every write, in the writer's transaction); a count
-- reads the bitmaps and checks the pending entries row by row, in one
-- snapshot, so it is always exact (internal/search/bits.go).
CREATE SEQUENCE search_bit_seq;
CREATE TABLE search_bits (
    term  TEXT COLLATE "C" NOT NULL,
    chunk INTEGER NOT NULL,
    bits  BYTEA NOT NULL,
    PRIMARY KEY (term, chunk)
);
CREATE TABLE search_bits_pending (bit BIGINT PRIMARY KEY);

-- a volatile default rewrites the table once, numbering every entry
ALTER TABLE search_entries ADD COLUMN bit BIGINT NOT NULL DEFAULT nextval('search_bit_seq');
-- with the order key: a small tier is sorted from the bitmaps' numbers without reading rows
CREATE UNIQUE INDEX search_entries_bit ON search_entries(bit) INCLUDE (updated_at, id);
INSERT INTO search_bits_pending (bit) SELECT bit FROM search_entries;

-- A changed entry takes a new bit number (the bitmaps only ever gain bits;
-- the old number is cleared from '~a' when folded); a slug or title-only
-- change keeps its number when nothing a bitmap holds changed.
CREATE FUNCTION search_bits_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO search_bits_pending (bit) VALUES (OLD.bit) ON CONFLICT DO NOTHING;
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.tsv = OLD.tsv AND NEW.boundary IS NOT DISTINCT FROM OLD.boundary AND NEW.container_id = OLD.container_id
           AND NEW.type = OLD.type AND NEW.node_id = OLD.node_id AND NEW.bit = OLD.bit THEN
            RETURN NEW;
        END IF;
        INSERT INTO search_bits_pending (bit) VALUES (OLD.bit) ON CONFLICT DO NOTHING;
        NEW.bit := nextval('search_bit_seq');
    END IF;
    INSERT INTO search_bits_pending (bit) VALUES (NEW.bit) ON CONFLICT DO NOTHING;
    RETURN NEW;
END
$$;
CREATE TRIGGER search_bits_mark BEFORE INSERT OR UPDATE OR DELETE ON search_entries
    FOR EACH ROW EXECUTE FUNCTION search_bits_mark();
