-- Surveys. A survey's answers are stored one row per (response,
-- question, value) in typed columns, so that statistics are index range
-- scans and aggregates in SQL; survey_counts holds the running counts per
-- question, option and chosen user, kept in the submitting transaction.
CREATE TABLE surveys (
    id               TEXT PRIMARY KEY,
    node_id          TEXT NOT NULL,
    slug             TEXT NOT NULL,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    add_to_side_menu BOOLEAN NOT NULL DEFAULT FALSE,
    anonymous        BOOLEAN NOT NULL DEFAULT FALSE,
    definition       TEXT NOT NULL,
    def_version      INTEGER NOT NULL DEFAULT 1,
    status           TEXT NOT NULL,
    answer_count     INTEGER NOT NULL DEFAULT 0,
    created_by       TEXT,
    created_at       TIMESTAMP NOT NULL,
    updated_at       TIMESTAMP NOT NULL,
    deleted_at       TIMESTAMP
);
CREATE UNIQUE INDEX surveys_node_slug ON surveys(node_id, slug) WHERE deleted_at IS NULL;
CREATE INDEX surveys_node ON surveys(node_id);

-- One row per response; respondent_id and respondent_name (the name when
-- submitted) are NULL in anonymous surveys, whose submitted_at keeps the day only.
CREATE TABLE survey_responses (
    survey_id     TEXT NOT NULL REFERENCES surveys(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    respondent_id TEXT,
    respondent_name TEXT,
    submitted_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (survey_id, seq),
    UNIQUE (survey_id, respondent_id)
);

-- One answer per user, in both modes: key is hex HMAC-SHA256(server secret,
-- survey id ":" user id), so that an anonymous survey stores no user id.
CREATE TABLE survey_respondents (
    survey_id TEXT NOT NULL REFERENCES surveys(id) ON DELETE CASCADE,
    key       TEXT NOT NULL,
    PRIMARY KEY (survey_id, key)
);

CREATE TABLE survey_answers (
    survey_id   TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    question_id TEXT NOT NULL,
    pos         INTEGER NOT NULL,
    option_id   TEXT,
    text_val    TEXT,
    num         REAL,
    date_val    TEXT,
    user_id     TEXT,
    display     TEXT,
    PRIMARY KEY (survey_id, seq, question_id, pos),
    FOREIGN KEY (survey_id, seq) REFERENCES survey_responses(survey_id, seq) ON DELETE CASCADE
);
CREATE INDEX survey_answers_num ON survey_answers(survey_id, question_id, num) WHERE num IS NOT NULL;
CREATE INDEX survey_answers_date ON survey_answers(survey_id, question_id, date_val) WHERE date_val IS NOT NULL;

CREATE TABLE survey_counts (
    survey_id   TEXT NOT NULL REFERENCES surveys(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL,
    n           INTEGER NOT NULL,
    total       REAL NOT NULL DEFAULT 0,
    label       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (survey_id, question_id, kind, key)
);
