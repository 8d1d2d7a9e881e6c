package surveys

import (
	"context"
	"database/sql"
	"fmt"
)

type countRow struct {
	countKey
	countVal
}

// counts reads the running counts of a survey.
func (st *Store) counts(ctx context.Context, surveyID string) ([]countRow, error) {
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT question_id, kind, key, n, total, label FROM survey_counts WHERE survey_id = ?`, surveyID)
	if err != nil {
		return nil, fmt.Errorf("read answer counts: %w", err)
	}
	defer rows.Close()
	var out []countRow
	for rows.Next() {
		var c countRow
		if err := rows.Scan(&c.question, &c.kind, &c.key, &c.n, &c.total, &c.label); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// numberAt returns the number answers of a question in ascending order from
// offset (an index range scan on survey_answers_num).
func (st *Store) numberAt(ctx context.Context, surveyID, questionID string, offset int64, limit int) ([]float64, error) {
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT num FROM survey_answers WHERE survey_id = ? AND question_id = ? AND num IS NOT NULL
		ORDER BY num LIMIT ? OFFSET ?`, surveyID, questionID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("read numbers: %w", err)
	}
	defer rows.Close()
	var out []float64
	for rows.Next() {
		var v float64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// numberEnd returns the smallest (desc=false) or largest number answer.
func (st *Store) numberEnd(ctx context.Context, surveyID, questionID string, desc bool) (*float64, error) {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	var v sql.NullFloat64
	err := st.db.Q(ctx).QueryRowContext(ctx, `SELECT num FROM survey_answers WHERE survey_id = ? AND question_id = ? AND num IS NOT NULL
		ORDER BY num `+dir+` LIMIT 1`, surveyID, questionID).Scan(&v)
	if err == sql.ErrNoRows || (err == nil && !v.Valid) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read number range: %w", err)
	}
	return &v.Float64, nil
}

// dateEnd returns the earliest (desc=false) or latest date answer.
func (st *Store) dateEnd(ctx context.Context, surveyID, questionID string, desc bool) (*string, error) {
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	var v sql.NullString
	err := st.db.Q(ctx).QueryRowContext(ctx, `SELECT date_val FROM survey_answers WHERE survey_id = ? AND question_id = ? AND date_val IS NOT NULL
		ORDER BY date_val `+dir+` LIMIT 1`, surveyID, questionID).Scan(&v)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read date range: %w", err)
	}
	return ns(v), nil
}
