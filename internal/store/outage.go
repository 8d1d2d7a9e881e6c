package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsUnavailable reports whether err means the database cannot be reached or
// used right now (connection refused or lost, server shutting down or not
// accepting connections, SQLite file unreadable, not a database, I/O error,
// disk full or locked by another process). Such failures answer 503
// UNAVAILABLE and are logged once per outage, not once per request.
func IsUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case len(pg.Code) == 5 && pg.Code[:2] == "08": // connection exception
			return true
		case pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03", // shutdown, cannot connect now
			pg.Code == "53300", pg.Code == "55000": // too many connections, database not accepting connections
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_BUSY:
			return true
		}
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// outage remembers whether the database is down, so that the loss and the
// recovery are each logged once, however many requests and loops fail. The
// database counts as back once calls have succeeded, without a failure in
// between, for recoverAfter: a pool where some connections work and others
// do not must not log a recovery and a new outage on every call.
type outage struct {
	isDown atomic.Bool // read on every call without the lock
	mu     sync.Mutex
	down   bool
	since  time.Time
	fails  int64
	okFrom time.Time // first success since the last failure
}

const recoverAfter = time.Second

// observe is called with the outcome of every database call made on ctx.
func (o *outage) observe(ctx context.Context, err error) {
	if err != nil {
		if ctx.Err() != nil || !IsUnavailable(err) {
			return
		}
		o.mu.Lock()
		o.fails++
		o.okFrom = time.Time{}
		if !o.down {
			o.down, o.since = true, time.Now()
			o.isDown.Store(true)
			o.mu.Unlock()
			slog.Error("database unreachable: requests answer 503 UNAVAILABLE until it is back", "err", err)
			return
		}
		o.mu.Unlock()
		return
	}
	if !o.isDown.Load() {
		return
	}
	o.mu.Lock()
	now := time.Now()
	if !o.down {
		o.mu.Unlock()
		return
	}
	if o.okFrom.IsZero() {
		o.okFrom = now
	}
	if now.Sub(o.okFrom) < recoverAfter {
		o.mu.Unlock()
		return
	}
	since, fails := o.since, o.fails
	o.down, o.fails, o.okFrom = false, 0, time.Time{}
	o.isDown.Store(false)
	o.mu.Unlock()
	slog.Info("database reachable again", "outage", now.Sub(since).Round(time.Millisecond).String(), "failedCalls", fails)
}

// Down reports whether the last database call failed because the database
// could not be reached.
func (db *DB) Down() bool { return db.outage.isDown.Load() }

// LogLoopError logs a failed pass of a background loop at ERROR, except when
// ctx has ended or the database is unreachable: the store logs an outage
// once when it starts and once when it ends, not on every pass of every loop.
func LogLoopError(ctx context.Context, msg string, err error, args ...any) {
	switch {
	case err == nil || ctx.Err() != nil:
	case IsUnavailable(err):
		slog.DebugContext(ctx, msg, append(args, "err", err)...)
	default:
		slog.ErrorContext(ctx, msg, append(args, "err", err)...)
	}
}
