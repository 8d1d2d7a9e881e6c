package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Tx is a transaction with the `?` placeholder convention.
type Tx struct {
	tx *sql.Tx
	d  Dialect
	o  *outage
	// afterCommit runs once the outermost transaction has committed.
	afterCommit []func()
	// conn is the connection of a PostgreSQL write transaction, on which
	// queued writes (Queue) are sent together; nil elsewhere.
	conn   *sql.Conn
	queue  []queuedWrite
	failed error // a queued write failed: the transaction is void
}

type txKey struct{}

func txFrom(ctx context.Context) *Tx {
	tx, _ := ctx.Value(txKey{}).(*Tx)
	return tx
}

// Every statement first sends the writes queued before it, so it sees them
// as if they had run at once.

func (t *Tx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	res, err := t.tx.ExecContext(ctx, t.d.Rebind(q), args...)
	t.o.observe(ctx, err)
	return res, err
}

func (t *Tx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.QueryContext(ctx, t.d.Rebind(q), args...)
	t.o.observe(ctx, err)
	return rows, err
}

// QueryRowContext after a failed queued write runs in the aborted transaction
// and fails; InTx then returns the queued write's error.
func (t *Tx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	_ = t.flush(ctx)
	row := t.tx.QueryRowContext(ctx, t.d.Rebind(q), args...)
	t.o.observe(ctx, row.Err())
	return row
}

// AfterCommit registers fn to run after the outermost transaction commits
// (live events, cache invalidation). It never runs on rollback.
func (t *Tx) AfterCommit(fn func()) { t.afterCommit = append(t.afterCommit, fn) }

// AfterCommit runs fn after the transaction bound to ctx commits, or at once
// when ctx carries no transaction.
func AfterCommit(ctx context.Context, fn func()) {
	if tx := txFrom(ctx); tx != nil {
		tx.AfterCommit(fn)
		return
	}
	fn()
}

// InTx runs fn in a transaction. Nested calls (ctx already carrying a
// transaction) join the outer one. fn receives a ctx bound to the transaction,
// so that every store call made with it takes part.
//
// An outermost transaction that PostgreSQL ends as a deadlock victim (40P01)
// or a serialization failure (40001) is run again, up to three times in all:
// the other transaction has gone on, and the caller never sees the conflict.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	if tx := txFrom(ctx); tx != nil {
		return fn(ctx, tx)
	}
	for attempt := 1; ; attempt++ {
		err := db.runTx(ctx, fn)
		if attempt >= 3 || ctx.Err() != nil || !conflicted(err) {
			return err
		}
	}
}

// conflicted reports a PostgreSQL deadlock or serialization failure.
func conflicted(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

func (db *DB) runTx(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	tx, err := db.begin(ctx)
	db.outage.observe(ctx, err)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer tx.release()
	txCtx := context.WithValue(ctx, txKey{}, tx)
	err = runGuarded(txCtx, tx, fn)
	if err == nil {
		err = tx.flush(txCtx)
	}
	if h, ok := ctx.Value(commitHookKey{}).(func(context.Context) error); ok && err == nil {
		err = h(txCtx)
	}
	if err != nil {
		_ = tx.tx.Rollback()
		if tx.failed != nil {
			return tx.failed // what fn saw after it is a consequence
		}
		return err
	}
	err = tx.tx.Commit()
	tx.release() // before afterCommit, which may need a connection of the pool
	if err != nil {
		db.outage.observe(ctx, err)
		return fmt.Errorf("commit: %w", translate(db.Dialect, err))
	}
	for _, f := range tx.afterCommit {
		f()
	}
	return nil
}

func runGuarded(ctx context.Context, tx *Tx, fn func(context.Context, *Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			_ = tx.tx.Rollback()
			panic(r)
		}
	}()
	return fn(ctx, tx)
}

// InTransaction reports whether ctx carries a transaction (caches must not be
// read or filled from inside one: it may see uncommitted changes).
func InTransaction(ctx context.Context) bool { return txFrom(ctx) != nil }

type commitHookKey struct{}

// WithCommitHook returns a ctx whose outermost transactions run hook as
// their last statement before COMMIT, in the transaction: what hook writes
// is committed exactly when the transaction's own writes are (an
// idempotency key marks that its request saved something). An error of hook
// rolls the transaction back.
func WithCommitHook(ctx context.Context, hook func(ctx context.Context) error) context.Context {
	return context.WithValue(ctx, commitHookKey{}, hook)
}
