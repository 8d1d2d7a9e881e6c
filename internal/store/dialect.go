package store

import (
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Dialect covers the few places where SQLite and PostgreSQL differ.
type Dialect int

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

var rebound sync.Map // query text -> PostgreSQL text

// Rebind turns `?` placeholders into `$1..$n` for PostgreSQL. Question marks
// inside quoted literals and identifiers are left alone.
func (d Dialect) Rebind(q string) string {
	if d != Postgres || !strings.Contains(q, "?") {
		return q
	}
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	rebound.Store(q, out)
	return out
}

// Placeholders returns "?, ?, ?" for n arguments.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// UniqueChunks splits vals, each value once in its first place, into chunks
// of at most n (the arguments of one IN list each).
func UniqueChunks[T comparable](vals []T, n int) [][]T {
	seen := make(map[T]bool, len(vals))
	var chunks [][]T
	for _, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == n {
			chunks = append(chunks, make([]T, 0, min(n, len(vals))))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], v)
	}
	return chunks
}

// Tuples returns "(?, ?), (?, ?)" for a multi-row VALUES list of rows rows
// of width values each.
func Tuples(rows, width int) string {
	if rows <= 0 {
		return ""
	}
	one := "(" + Placeholders(width) + ")"
	return strings.Repeat(one+", ", rows-1) + one
}

// Like escapes a user value for use in `LIKE ? ESCAPE '\'`, wrapped in %…%.
func Like(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(v) + "%"
}

// Now is the SQL expression of the current timestamp.
func (d Dialect) Now() string {
	if d == Postgres {
		return "now()"
	}
	return "strftime('%Y-%m-%d %H:%M:%f+00:00','now')"
}

// ForUpdate is the row-lock suffix of a SELECT in a transaction; SQLite has
// one writer, so none is needed.
func (d Dialect) ForUpdate() string {
	if d == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// ForUpdateSkipLocked is the row-claim suffix; SQLite has one writer, so none is needed.
func (d Dialect) ForUpdateSkipLocked() string {
	if d == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// Planned marks a query for planning with its actual arguments. The driver
// caches statements, and PostgreSQL switches a cached statement to a
// generic plan after a few runs: that plan ignores how selective the values
// are (a listing's filter, a search's words), so it may read a million rows
// where the values call for a few. DescribeExec prepares an unnamed
// statement each time, which PostgreSQL always plans with the values given
// (one extra round trip). SQLite plans each statement with its values anyway.
func (d Dialect) Planned(args []any) []any {
	if d != Postgres {
		return args
	}
	return append([]any{pgx.QueryExecModeDescribeExec}, args...)
}
