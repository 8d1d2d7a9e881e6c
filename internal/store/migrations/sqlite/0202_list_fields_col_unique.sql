-- Two fields of one list must never share a column number: concurrent field
-- creation must not reuse one (it would break the list: every later field fails).
CREATE UNIQUE INDEX list_fields_list_col ON list_fields(list_id, col);
