package surveys

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"coreportal/internal/store"
)

// response is one response to write.
type response struct {
	Seq        int64
	Respondent string // "" in anonymous surveys
	Name       string // the respondent's name when submitted; "" in anonymous surveys
	At         time.Time
	Values     []value
}

// countKey names one running count: kind q = answers to a question (total =
// sum of its numbers), o = an option chosen, u = a user chosen (label = name).
type countKey struct{ question, kind, key string }

type countVal struct {
	n     int64
	total float64
	label string
}

// insertRespondent records that a user answered; store.ErrUnique when it already did.
func (st *Store) insertRespondent(ctx context.Context, surveyID, key string) error {
	_, err := st.db.W(ctx).ExecContext(ctx, `INSERT INTO survey_respondents (survey_id, key) VALUES (?, ?)`, surveyID, key)
	if err != nil {
		return fmt.Errorf("record respondent: %w", st.db.Translate(err))
	}
	return nil
}

// insertRespondents records many respondent marks (SeedResponses).
func (st *Store) insertRespondents(ctx context.Context, surveyID string, keys []string) error {
	const chunk = 500
	for i := 0; i < len(keys); i += chunk {
		part := keys[i:min(i+chunk, len(keys))]
		args := make([]any, 0, 2*len(part))
		for _, k := range part {
			args = append(args, surveyID, k)
		}
		if _, err := st.db.W(ctx).ExecContext(ctx, `INSERT INTO survey_respondents (survey_id, key) VALUES `+store.Tuples(len(part), 2), args...); err != nil {
			return fmt.Errorf("record respondents: %w", st.db.Translate(err))
		}
	}
	return nil
}

// claimSeqs counts n new answers of an open survey whose definition is still
// version defVersion and returns the first new response number; ok is false
// when the survey is not open (any more) or its definition changed.
func (st *Store) claimSeqs(ctx context.Context, surveyID string, defVersion int, n int64) (int64, bool, error) {
	var last int64
	err := st.db.W(ctx).QueryRowContext(ctx, `UPDATE surveys SET answer_count = answer_count + ?
		WHERE id = ? AND status = 'open' AND deleted_at IS NULL AND def_version = ? RETURNING answer_count`, n, surveyID, defVersion).Scan(&last)
	if store.IsNotFound(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("count answer: %w", err)
	}
	return last - n + 1, true, nil
}

// insertResponses writes responses with their answer rows and adds their counts.
func (st *Store) insertResponses(ctx context.Context, surveyID string, rs []response) error {
	const respChunk = 300
	for i := 0; i < len(rs); i += respChunk {
		part := rs[i:min(i+respChunk, len(rs))]
		args := make([]any, 0, len(part)*5)
		for _, r := range part {
			args = append(args, surveyID, r.Seq, nullable(r.Respondent), nullable(r.Name), r.At)
		}
		q := `INSERT INTO survey_responses (survey_id, seq, respondent_id, respondent_name, submitted_at) VALUES ` + store.Tuples(len(part), 5)
		if _, err := st.db.W(ctx).ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("insert responses: %w", st.db.Translate(err))
		}
	}
	const valChunk = 500
	var batch []any
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		q := `INSERT INTO survey_answers (survey_id, seq, question_id, pos, option_id, text_val, num, date_val, user_id, display) VALUES ` + store.Tuples(rows, 10)
		if _, err := st.db.W(ctx).ExecContext(ctx, q, batch...); err != nil {
			return fmt.Errorf("insert answers: %w", st.db.Translate(err))
		}
		batch, rows = batch[:0], 0
		return nil
	}
	counts := map[countKey]*countVal{}
	add := func(k countKey, total float64, label string) {
		c := counts[k]
		if c == nil {
			c = &countVal{}
			counts[k] = c
		}
		c.n++
		c.total += total
		if label != "" {
			c.label = label
		}
	}
	for _, r := range rs {
		answeredQ := map[string]bool{}
		for _, v := range r.Values {
			batch = append(batch, surveyID, r.Seq, v.Question, v.Pos, v.OptionID, v.Text, v.Num, v.Date, v.UserID, v.Display)
			rows++
			if rows == valChunk {
				if err := flush(); err != nil {
					return err
				}
			}
			if !answeredQ[v.Question] {
				answeredQ[v.Question] = true
				add(countKey{v.Question, "q", ""}, 0, "")
			}
			switch {
			case v.Num != nil:
				counts[countKey{v.Question, "q", ""}].total += *v.Num
			case v.OptionID != nil:
				add(countKey{v.Question, "o", *v.OptionID}, 0, "")
			case v.UserID != nil:
				add(countKey{v.Question, "u", *v.UserID}, 0, deref(v.Display))
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return st.addCounts(ctx, surveyID, counts)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// addCounts upserts running counts in key order (concurrent submitters lock
// the rows in the same order, so they cannot deadlock).
func (st *Store) addCounts(ctx context.Context, surveyID string, counts map[countKey]*countVal) error {
	keys := make([]countKey, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.question != b.question {
			return a.question < b.question
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.key < b.key
	})
	const chunk = 400
	for i := 0; i < len(keys); i += chunk {
		part := keys[i:min(i+chunk, len(keys))]
		args := make([]any, 0, len(part)*7)
		for _, k := range part {
			c := counts[k]
			args = append(args, surveyID, k.question, k.kind, k.key, c.n, c.total, c.label)
		}
		q := `INSERT INTO survey_counts (survey_id, question_id, kind, key, n, total, label) VALUES ` + store.Tuples(len(part), 7) + `
			ON CONFLICT (survey_id, question_id, kind, key) DO UPDATE SET n = survey_counts.n + excluded.n,
			total = survey_counts.total + excluded.total,
			label = CASE WHEN excluded.label = '' THEN survey_counts.label ELSE excluded.label END`
		if _, err := st.db.W(ctx).ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("add answer counts: %w", err)
		}
	}
	return nil
}

// storedResponse is a response read back with its answer rows.
type storedResponse struct {
	Seq        int64
	Respondent sql.NullString
	Name       sql.NullString
	At         time.Time
	Values     []value
}

// responses reads responses with seq in (after, after+limit] in order, with their answers.
func (st *Store) responses(ctx context.Context, surveyID string, after int64, limit int) ([]*storedResponse, error) {
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT seq, respondent_id, respondent_name, submitted_at FROM survey_responses
		WHERE survey_id = ? AND seq > ? ORDER BY seq LIMIT ?`, surveyID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read responses: %w", err)
	}
	var out []*storedResponse
	bySeq := map[int64]*storedResponse{}
	for rows.Next() {
		r := &storedResponse{}
		if err := rows.Scan(&r.Seq, &r.Respondent, &r.Name, &r.At); err != nil {
			rows.Close()
			return nil, err
		}
		r.At = r.At.UTC()
		out = append(out, r)
		bySeq[r.Seq] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	vr, err := st.db.Q(ctx).QueryContext(ctx, `SELECT seq, question_id, pos, option_id, text_val, num, date_val, user_id, display
		FROM survey_answers WHERE survey_id = ? AND seq >= ? AND seq <= ? ORDER BY seq, question_id, pos`, surveyID, out[0].Seq, out[len(out)-1].Seq)
	if err != nil {
		return nil, fmt.Errorf("read answers: %w", err)
	}
	defer vr.Close()
	for vr.Next() {
		var seq int64
		var v value
		var opt, text, date, user, display sql.NullString
		var num sql.NullFloat64
		if err := vr.Scan(&seq, &v.Question, &v.Pos, &opt, &text, &num, &date, &user, &display); err != nil {
			return nil, err
		}
		v.OptionID, v.Text, v.Date, v.UserID, v.Display = ns(opt), ns(text), ns(date), ns(user), ns(display)
		if num.Valid {
			n := num.Float64
			v.Num = &n
		}
		if r := bySeq[seq]; r != nil {
			r.Values = append(r.Values, v)
		}
	}
	return out, vr.Err()
}

func ns(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}
