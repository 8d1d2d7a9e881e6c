-- The pending list is a log: with one row per bit
-- number, a delete committed while a fold was folding the same number found
-- the row still there (ON CONFLICT DO NOTHING), and the fold then removed it:
-- the entry stayed counted for good. Every write now appends a row; a fold
-- removes exactly the rows it read, so a later write's row stays pending.
ALTER TABLE search_bits_pending DROP CONSTRAINT search_bits_pending_pkey;
ALTER TABLE search_bits_pending ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY;

CREATE OR REPLACE FUNCTION search_bits_mark() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO search_bits_pending (bit) VALUES (OLD.bit);
        RETURN OLD;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        IF NEW.tsv = OLD.tsv AND NEW.boundary IS NOT DISTINCT FROM OLD.boundary AND NEW.container_id = OLD.container_id
           AND NEW.type = OLD.type AND NEW.node_id = OLD.node_id AND NEW.bit = OLD.bit THEN
            RETURN NEW;
        END IF;
        INSERT INTO search_bits_pending (bit) VALUES (OLD.bit);
        NEW.bit := nextval('search_bit_seq');
    END IF;
    INSERT INTO search_bits_pending (bit) VALUES (NEW.bit);
    RETURN NEW;
END
$$;
