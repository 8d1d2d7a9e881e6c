// Package store opens the embedded SQLite file or PostgreSQL, applies the
// embedded migrations and offers transactions. SQL is written with `?`
// placeholders and rebound to `$n` for PostgreSQL.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"coreportal/internal/privfs"
)

// Querier is what both a DB and a Tx can do. Queries use `?` placeholders.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// DB is the project's database handle.
type DB struct {
	Dialect Dialect
	write   *sql.DB // SQLite: the single writer connection; PostgreSQL: the pool
	read    *sql.DB // SQLite: read-only pool; PostgreSQL: same as write
	outage  *outage
}

// Open connects to PostgreSQL when databaseURL is set, else to the SQLite file at sqlitePath.
func Open(ctx context.Context, databaseURL, sqlitePath string) (*DB, error) {
	if databaseURL != "" {
		return openPostgres(ctx, databaseURL)
	}
	return openSQLite(ctx, sqlitePath)
}

const (
	parallelWorkers = "max_parallel_workers_per_gather"
	minPostgres     = 140000 // CREATE OR REPLACE TRIGGER (item counters)
)

func openPostgres(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	db := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(serialByDefault))
	db.SetMaxOpenConns(max(8, runtime.NumCPU()*4))
	db.SetMaxIdleConns(max(8, runtime.NumCPU()*4))
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := ping(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	var version int
	if err := db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("read postgres version: %w", err)
	}
	if version < minPostgres {
		db.Close()
		return nil, fmt.Errorf("PostgreSQL 14 or later is required, the server is %d.%d", version/10000, version%10000)
	}
	return &DB{Dialect: Postgres, write: db, read: db, outage: &outage{}}, nil
}

// restrictSQLite makes the data folder 0700 and the database file, its
// write-ahead log and shared-memory file 0600 (SQLite creates the last two
// with the mode of the database file), whatever the umask.
func restrictSQLite(path string) error {
	if err := privfs.MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, privfs.FileMode)
	if err != nil {
		return fmt.Errorf("open sqlite %s: %w", path, err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := privfs.Restrict(p); err != nil {
			return err
		}
	}
	return nil
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if err := restrictSQLite(path); err != nil {
		return nil, err
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_time_format=sqlite" +
		sqliteMemoryPragmas()
	write, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&"+pragmas)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	if err := ping(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if err := restrictSQLite(path); err != nil { // the -wal and -shm files exist now
		write.Close()
		return nil, err
	}
	read, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite reader %s: %w", path, err)
	}
	n := max(4, runtime.NumCPU()*2)
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxLifetime(0)
	return &DB{Dialect: SQLite, write: write, read: read, outage: &outage{}}, nil
}

// serialByDefault turns parallel query off on a new session unless something
// chose its value (the URL, options or PGOPTIONS, ALTER DATABASE or ROLE, the
// server's configuration file): the service runs many short queries at once,
// and a parallel plan for a listing count took 2-3 times longer than the
// serial one (125-190 ms against 60 ms for 400,000 index entries, bench/lists).
func serialByDefault(ctx context.Context, c *pgx.Conn) error {
	var source string
	if err := c.QueryRow(ctx, "SELECT source FROM pg_settings WHERE name = '"+parallelWorkers+"'").Scan(&source); err != nil {
		return fmt.Errorf("read %s: %w", parallelWorkers, err)
	}
	if source != "default" {
		return nil
	}
	if _, err := c.Exec(ctx, "SET "+parallelWorkers+" = 0"); err != nil {
		return fmt.Errorf("set %s: %w", parallelWorkers, err)
	}
	return nil
}

func ping(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// Close releases every connection.
func (db *DB) Close() error {
	err := db.write.Close()
	if db.read != db.write {
		if rerr := db.read.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// Ping checks that the store answers (used by /health).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	err := db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one)
	db.outage.observe(ctx, err)
	return err
}

// Stats returns connection statistics of the main pool.
func (db *DB) Stats() sql.DBStats { return db.write.Stats() }

// InUse returns the connections in use of every pool of the process (on
// SQLite the writer and the read-only pool).
func (db *DB) InUse() int {
	n := db.write.Stats().InUse
	if db.read != db.write {
		n += db.read.Stats().InUse
	}
	return n
}

// Q returns the transaction bound to ctx, or the database for reads.
// Writes outside InTx go through the writer as well (see Exec).
func (db *DB) Q(ctx context.Context) Querier {
	if tx := txFrom(ctx); tx != nil {
		return tx
	}
	return &conn{db: db.read, d: db.Dialect, o: db.outage}
}

// W returns the transaction bound to ctx, or the writer connection.
func (db *DB) W(ctx context.Context) Querier {
	if tx := txFrom(ctx); tx != nil {
		return tx
	}
	return &conn{db: db.write, d: db.Dialect, o: db.outage}
}

// conn adapts *sql.DB to the `?` placeholder convention.
type conn struct {
	db *sql.DB
	d  Dialect
	o  *outage
}

func (c *conn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	res, err := c.db.ExecContext(ctx, c.d.Rebind(q), args...)
	c.o.observe(ctx, err)
	return res, err
}

func (c *conn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	rows, err := c.db.QueryContext(ctx, c.d.Rebind(q), args...)
	c.o.observe(ctx, err)
	return rows, err
}

func (c *conn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	row := c.db.QueryRowContext(ctx, c.d.Rebind(q), args...)
	c.o.observe(ctx, row.Err())
	return row
}

// SQLite memory per connection (README: CORE_SQLITE_MMAP_MB, CORE_SQLITE_CACHE_MB).
// Every connection (one writer, 2 readers per CPU, at least 4) keeps its own
// page cache and its own memory map, and the pages a map touched count in
// the process's resident size once per connection: the former 1 GiB map made
// a 100 MB database show 1.7 GB resident. By default there is no map and each
// connection caches up to 16 MiB; the OS page cache (shared, not counted in
// the process) holds the rest of the working set. An operator who prefers
// faster full scans over a truthful RSS may set a map size.
const (
	defaultSQLiteMmapMB  = 0
	defaultSQLiteCacheMB = 16
	maxSQLiteMB          = 1 << 16
)

func sqliteMemoryPragmas() string {
	mb := func(env string, def int) int {
		v := strings.TrimSpace(os.Getenv(env))
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxSQLiteMB {
			slog.Warn("ignored invalid setting, using the default", "env", env, "value", v, "default", def)
			return def
		}
		return n
	}
	mmap := mb("CORE_SQLITE_MMAP_MB", defaultSQLiteMmapMB)
	cache := mb("CORE_SQLITE_CACHE_MB", defaultSQLiteCacheMB)
	// a negative cache_size is in KiB
	return fmt.Sprintf("&_pragma=mmap_size(%d)&_pragma=cache_size(-%d)", int64(mmap)<<20, cache<<10)
}
