-- Two fields of one list must never share a column number: concurrent field
-- creation used to reuse one and break the list (every later field failed).
CREATE UNIQUE INDEX list_fields_list_col ON list_fields(list_id, col);
