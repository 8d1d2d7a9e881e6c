package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// queuedWrite is a write held back until the transaction's next statement.
type queuedWrite struct {
	what  string
	query string
	args  []any
}

// begin starts a write transaction. On PostgreSQL it holds its connection,
// so that queued writes can be sent on it in one round trip.
func (db *DB) begin(ctx context.Context) (*Tx, error) {
	if db.Dialect != Postgres {
		sqlTx, err := db.write.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &Tx{tx: sqlTx, d: db.Dialect, o: db.outage}, nil
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return nil, err
	}
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &Tx{tx: sqlTx, d: db.Dialect, o: db.outage, conn: conn}, nil
}

// release returns the connection of a finished transaction to the pool.
func (t *Tx) release() {
	if t.conn != nil {
		_ = t.conn.Close()
		t.conn = nil
	}
}

// Queue runs a write whose outcome the caller does not act on (no rows to
// read, no error to tell apart: an insert of a new row, say) in the
// transaction bound to ctx. In a PostgreSQL write transaction the queued
// writes are sent together, in one round trip, right before the
// transaction's next statement or its commit, in the order they were
// queued; a failure voids the transaction, and InTx returns it wrapped with
// what. Elsewhere (SQLite, no transaction) the write runs at once. A
// transaction's item save thus costs one round trip for its version,
// index entry, access-control row and outbox event instead of four.
func (db *DB) Queue(ctx context.Context, what, q string, args ...any) error {
	tx := txFrom(ctx)
	if tx == nil || tx.conn == nil {
		if _, err := db.W(ctx).ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("%s: %w", what, translate(db.Dialect, err))
		}
		return nil
	}
	if tx.failed != nil {
		return tx.failed
	}
	tx.queue = append(tx.queue, queuedWrite{what: what, query: tx.d.Rebind(q), args: args})
	return nil
}

// flush sends the queued writes as one pipeline on the transaction's connection.
func (t *Tx) flush(ctx context.Context) error {
	if t.failed != nil || len(t.queue) == 0 {
		return t.failed
	}
	ws := t.queue
	t.queue = nil
	err := t.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("queued writes: unexpected driver connection %T", dc)
		}
		b := &pgx.Batch{}
		for _, w := range ws {
			b.Queue(w.query, w.args...)
		}
		br := c.Conn().SendBatch(ctx, b)
		for _, w := range ws {
			if _, err := br.Exec(); err != nil {
				_ = br.Close()
				return fmt.Errorf("%s: %w", w.what, translate(t.d, err))
			}
		}
		return br.Close()
	})
	t.o.observe(ctx, err)
	if err != nil {
		t.failed = err
	}
	return err
}
