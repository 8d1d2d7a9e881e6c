package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"coreportal/internal/store"
)

type auditStore struct{ db *store.DB }

const auditCols = `id, at, actor_id, actor_login, actor_address, action, resource_type, resource_id, outcome, details, correlation_id`

func (s *auditStore) insert(ctx context.Context, r Row) error {
	details, err := json.Marshal(r.Details)
	if err != nil {
		return fmt.Errorf("encode audit details: %w", err)
	}
	var actor any
	if r.ActorID != "" {
		actor = r.ActorID
	}
	_, err = s.db.W(ctx).ExecContext(ctx, `INSERT INTO audit_log (`+auditCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.At, actor, r.ActorLogin, r.ActorAddress, r.Action, r.ResourceType, r.ResourceID, r.Outcome, string(details), r.CorrelationID)
	if err != nil {
		return fmt.Errorf("insert audit record: %w", err)
	}
	return nil
}

func (s *auditStore) where(f Filter) (string, []any) {
	var where []string
	var args []any
	if f.Actor != "" {
		if id, ok := store.CanonicalUUID(f.Actor); ok {
			where = append(where, "actor_id = ?")
			args = append(args, id)
		} else {
			where = append(where, "lower(actor_login) = ?")
			args = append(args, strings.ToLower(f.Actor))
		}
	}
	if f.Action != "" {
		if strings.HasSuffix(f.Action, ".") {
			where = append(where, `action LIKE ? ESCAPE '\'`)
			args = append(args, strings.TrimPrefix(store.Like(f.Action), "%"))
		} else {
			where = append(where, "action = ?")
			args = append(args, f.Action)
		}
	}
	if f.ResourceType != "" {
		where = append(where, "resource_type = ?")
		args = append(args, f.ResourceType)
	}
	if f.ResourceID != "" {
		where = append(where, "resource_id = ?")
		args = append(args, f.ResourceID)
	}
	if !f.From.IsZero() {
		where = append(where, "at >= ?")
		args = append(args, f.From.UTC())
	}
	if !f.To.IsZero() {
		where = append(where, "at <= ?")
		args = append(args, f.To.UTC())
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (s *auditStore) list(ctx context.Context, f Filter, offset, limit int) ([]Row, int, error) {
	cond, args := s.where(f)
	var total int
	if err := s.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM audit_log`+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count audit records: %w", err)
	}
	out := []Row{}
	err := s.query(ctx, cond, args, offset, limit, func(r Row) error { out = append(out, r); return nil })
	return out, total, err
}

func (s *auditStore) each(ctx context.Context, f Filter, limit int, fn func(Row) error) error {
	cond, args := s.where(f)
	return s.query(ctx, cond, args, 0, limit, fn)
}

func (s *auditStore) query(ctx context.Context, cond string, args []any, offset, limit int, fn func(Row) error) error {
	rows, err := s.db.Q(ctx).QueryContext(ctx, `SELECT `+auditCols+` FROM audit_log`+cond+` ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return fmt.Errorf("list audit records: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		var actor sql.NullString
		var details string
		if err := rows.Scan(&r.ID, &r.At, &actor, &r.ActorLogin, &r.ActorAddress, &r.Action, &r.ResourceType, &r.ResourceID, &r.Outcome, &details, &r.CorrelationID); err != nil {
			return fmt.Errorf("scan audit record: %w", err)
		}
		r.ActorID = actor.String
		r.At = r.At.UTC()
		if err := json.Unmarshal([]byte(details), &r.Details); err != nil {
			return fmt.Errorf("decode audit details: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}
