package surveys

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"coreportal/internal/store"
)

// Store holds the SQL of surveys, responses, answers and counts.
type Store struct{ db *store.DB }

const surveyCols = `id, node_id, slug, title, description, add_to_side_menu, definition, def_version, status, answer_count, created_by, created_at, updated_at`

func scanSurvey(r interface{ Scan(...any) error }) (*Survey, error) {
	var s Survey
	var def string
	var by sql.NullString
	if err := r.Scan(&s.ID, &s.NodeID, &s.Slug, &s.Title, &s.Description, &s.AddToSideMenu, &def, &s.DefVersion, &s.Status,
		&s.AnswerCount, &by, &s.CreatedAt, &s.UpdatedAt); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(def), &s.Definition); err != nil {
		return nil, fmt.Errorf("decode definition of survey %s: %w", s.ID, err)
	}
	s.CreatedBy = by.String
	s.CreatedAt, s.UpdatedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC()
	return &s, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (st *Store) insertSurvey(ctx context.Context, s *Survey) error {
	_, err := st.db.W(ctx).ExecContext(ctx, `INSERT INTO surveys (id, node_id, slug, title, description, add_to_side_menu, anonymous, definition,
		def_version, status, answer_count, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
		s.ID, s.NodeID, s.Slug, s.Title, s.Description, s.AddToSideMenu, s.Definition.Anonymous, string(raw(s.Definition)),
		s.DefVersion, s.Status, nullable(s.CreatedBy), s.CreatedAt, s.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert survey: %w", st.db.Translate(err))
	}
	return nil
}

// survey reads a survey that is not in the recycle bin.
func (st *Store) survey(ctx context.Context, id string) (*Survey, error) {
	return scanSurvey(st.db.Q(ctx).QueryRowContext(ctx, `SELECT `+surveyCols+` FROM surveys WHERE id = ? AND deleted_at IS NULL`, id))
}

// surveyAny reads a survey, also one in the recycle bin.
func (st *Store) surveyAny(ctx context.Context, id string) (*Survey, error) {
	return scanSurvey(st.db.Q(ctx).QueryRowContext(ctx, `SELECT `+surveyCols+` FROM surveys WHERE id = ?`, id))
}

func (st *Store) idBySlug(ctx context.Context, nodeID, slug string) (string, error) {
	var id string
	err := st.db.Q(ctx).QueryRowContext(ctx, `SELECT id FROM surveys WHERE node_id = ? AND slug = ? AND deleted_at IS NULL`, nodeID, slug).Scan(&id)
	return id, err
}

func (st *Store) slugsLike(ctx context.Context, nodeID, prefix string) (map[string]bool, error) {
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT slug FROM surveys WHERE node_id = ? AND deleted_at IS NULL AND slug LIKE ? ESCAPE '\'`,
		nodeID, strings.TrimSuffix(store.Like(prefix), "%"))
	if err != nil {
		return nil, fmt.Errorf("read slugs: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out[s] = true
	}
	return out, rows.Err()
}

func (st *Store) ofNode(ctx context.Context, nodeID string) ([]*Survey, error) {
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT `+surveyCols+` FROM surveys WHERE node_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, nodeID)
	if err != nil {
		return nil, fmt.Errorf("read surveys of node: %w", err)
	}
	defer rows.Close()
	var out []*Survey
	for rows.Next() {
		s, err := scanSurvey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// updateMeta writes title, slug, description and the side-menu flag.
func (st *Store) updateMeta(ctx context.Context, s *Survey) error {
	_, err := st.db.W(ctx).ExecContext(ctx, `UPDATE surveys SET title = ?, slug = ?, description = ?, add_to_side_menu = ?, updated_at = ? WHERE id = ?`,
		s.Title, s.Slug, s.Description, s.AddToSideMenu, s.UpdatedAt, s.ID)
	if err != nil {
		return fmt.Errorf("update survey: %w", st.db.Translate(err))
	}
	return nil
}

// updateDefinition replaces the definition while the survey has no answers;
// false when an answer arrived first.
func (st *Store) updateDefinition(ctx context.Context, id string, d SurveyDefinition, now time.Time) (bool, error) {
	res, err := st.db.W(ctx).ExecContext(ctx, `UPDATE surveys SET definition = ?, anonymous = ?, def_version = def_version + 1, updated_at = ?
		WHERE id = ? AND answer_count = 0`, string(raw(d)), d.Anonymous, now, id)
	if err != nil {
		return false, fmt.Errorf("update definition: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// setStatus moves a survey from one status to another; false when it was not in from.
func (st *Store) setStatus(ctx context.Context, id, from, to string, now time.Time) (bool, error) {
	res, err := st.db.W(ctx).ExecContext(ctx, `UPDATE surveys SET status = ?, updated_at = ? WHERE id = ? AND status = ? AND deleted_at IS NULL`, to, now, id, from)
	if err != nil {
		return false, fmt.Errorf("change survey status: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (st *Store) setDeleted(ctx context.Context, id string, at *time.Time) error {
	var v any
	if at != nil {
		v = *at
	}
	if _, err := st.db.W(ctx).ExecContext(ctx, `UPDATE surveys SET deleted_at = ? WHERE id = ?`, v, id); err != nil {
		return fmt.Errorf("mark survey deleted: %w", st.db.Translate(err))
	}
	return nil
}

// purge deletes a survey with its responses, answers and counts.
func (st *Store) purge(ctx context.Context, id string) error {
	for _, q := range []string{
		`DELETE FROM survey_answers WHERE survey_id = ?`,
		`DELETE FROM survey_responses WHERE survey_id = ?`,
		`DELETE FROM survey_respondents WHERE survey_id = ?`,
		`DELETE FROM survey_counts WHERE survey_id = ?`,
		`DELETE FROM surveys WHERE id = ?`,
	} {
		if _, err := st.db.W(ctx).ExecContext(ctx, q, id); err != nil {
			return fmt.Errorf("purge survey: %w", err)
		}
	}
	return nil
}

// answered returns the surveys among ids whose respondent key is in keys.
func (st *Store) answered(ctx context.Context, ids, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(ids)+len(keys))
	for _, id := range ids {
		args = append(args, id)
	}
	for _, k := range keys {
		args = append(args, k)
	}
	rows, err := st.db.Q(ctx).QueryContext(ctx, `SELECT survey_id FROM survey_respondents WHERE survey_id IN (`+store.Placeholders(len(ids))+`)
		AND key IN (`+store.Placeholders(len(keys))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read respondents: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[strings.ToLower(id)] = true
	}
	return out, rows.Err()
}
