-- Folder listings put folders first (is_folder DESC) and then sort ascending by
-- name, size or modification time: these indexes match that order exactly, so
-- a page is an index walk on both databases. Descending sorts walk the
-- indexes of 0500 backwards.
CREATE INDEX library_files_by_name_asc ON library_files(library_id, parent_no, is_folder DESC, name_key, number) WHERE deleted_at IS NULL;
CREATE INDEX library_files_by_size_asc ON library_files(library_id, parent_no, is_folder DESC, file_size, number) WHERE deleted_at IS NULL;
CREATE INDEX library_files_by_modified_asc ON library_files(library_id, parent_no, is_folder DESC, updated_at, number) WHERE deleted_at IS NULL;
-- The folder's total (count) reads this narrow index only; PostgreSQL would
-- otherwise scan the table of a large folder.
CREATE INDEX library_files_parent ON library_files(library_id, parent_no) WHERE deleted_at IS NULL;
