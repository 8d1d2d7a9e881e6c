package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/store"
)

// Delivery statuses in the log.
const (
	StatusSucceeded = "succeeded" // 2xx answer
	StatusRetrying  = "retrying"  // failed, another attempt is scheduled (nextRetryAt)
	StatusFailed    = "failed"    // failed, no attempt left
	StatusRefused   = "refused"   // target refused by the SSRF rule (not retried)
	StatusWithheld  = "withheld"  // the receiver's creator may not view the resource: nothing was sent
)

// Attempt is one row of a receiver's delivery log.
type Attempt struct {
	ID            string     `json:"id" format:"uuid"`
	ReceiverID    string     `json:"receiverId" format:"uuid"`
	DeliveryID    string     `json:"deliveryId" format:"uuid" doc:"the X-Core-Delivery header; the same on every retry of one event"`
	EventName     string     `json:"eventName"`
	Attempt       int        `json:"attempt" doc:"1 for the first try"`
	Status        string     `json:"status" enum:"succeeded,retrying,failed,refused,withheld"`
	HTTPStatus    *int       `json:"httpStatus" doc:"the receiver's answer status; null when no answer came"`
	DurationMs    int64      `json:"durationMs"`
	AnswerExcerpt string     `json:"answerExcerpt" doc:"first 1 KiB of the receiver's answer body"`
	Error         string     `json:"error"`
	NextRetryAt   *time.Time `json:"nextRetryAt" doc:"when the next attempt is due (status retrying)"`
	CreatedAt     time.Time  `json:"createdAt"`
}

// Log is the delivery log (table webhook_deliveries).
type Log struct{ db *store.DB }

// NewLog builds the log.
func NewLog(db *store.DB) *Log { return &Log{db: db} }

// Add records an attempt.
func (l *Log) Add(ctx context.Context, a *Attempt) error {
	if a.ID == "" {
		a.ID = uuid.NewString()
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now().UTC()
	}
	if len(a.Error) > 500 {
		a.Error = a.Error[:500]
	}
	_, err := l.db.W(ctx).ExecContext(ctx, `INSERT INTO webhook_deliveries (id, receiver_id, delivery_id, event_name, attempt, status,
		http_status, duration_ms, answer_excerpt, error, next_retry_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.ReceiverID, a.DeliveryID, a.EventName, a.Attempt, a.Status, a.HTTPStatus, a.DurationMs, a.AnswerExcerpt, a.Error,
		a.NextRetryAt, a.CreatedAt)
	if err != nil {
		return fmt.Errorf("record webhook delivery: %w", err)
	}
	return nil
}

// List returns a receiver's attempts, newest first, and their total.
func (l *Log) List(ctx context.Context, receiverID string, limit, offset int) ([]Attempt, int, error) {
	var total int
	if err := l.db.Q(ctx).QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries WHERE receiver_id = ?`, receiverID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count webhook deliveries: %w", err)
	}
	rows, err := l.db.Q(ctx).QueryContext(ctx, `SELECT id, receiver_id, delivery_id, event_name, attempt, status, http_status, duration_ms,
		answer_excerpt, error, next_retry_at, created_at FROM webhook_deliveries WHERE receiver_id = ?
		ORDER BY created_at DESC, attempt DESC LIMIT ? OFFSET ?`, receiverID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("list webhook deliveries: %w", err)
	}
	defer rows.Close()
	out := []Attempt{}
	for rows.Next() {
		var a Attempt
		var hs sql.NullInt64
		var next sql.NullTime
		if err := rows.Scan(&a.ID, &a.ReceiverID, &a.DeliveryID, &a.EventName, &a.Attempt, &a.Status, &hs, &a.DurationMs,
			&a.AnswerExcerpt, &a.Error, &next, &a.CreatedAt); err != nil {
			return nil, 0, fmt.Errorf("scan webhook delivery: %w", err)
		}
		if hs.Valid {
			v := int(hs.Int64)
			a.HTTPStatus = &v
		}
		if next.Valid {
			t := next.Time.UTC()
			a.NextRetryAt = &t
		}
		a.CreatedAt = a.CreatedAt.UTC()
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// DeleteReceiver drops a removed receiver's log.
func (l *Log) DeleteReceiver(ctx context.Context, receiverID string) error {
	_, err := l.db.W(ctx).ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE receiver_id = ?`, receiverID)
	if err != nil {
		return fmt.Errorf("delete webhook deliveries: %w", err)
	}
	return nil
}

// Purge removes attempts older than before.
func (l *Log) Purge(ctx context.Context, before time.Time) (int64, error) {
	res, err := l.db.W(ctx).ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE created_at < ?`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("purge webhook deliveries: %w", err)
	}
	return res.RowsAffected()
}
