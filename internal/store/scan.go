package store

import (
	"context"
	"database/sql"
)

// Scanner is what *sql.Row and *sql.Rows have in common.
type Scanner interface{ Scan(dest ...any) error }

// AppendRows reads every row with scan, appends the results to dst and
// closes rows; dst decides whether no rows answer nil or an empty slice.
func AppendRows[T any](rows *sql.Rows, dst []T, scan func(Scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
	}
	return dst, rows.Err()
}

// Values reads the one column of a query's rows (nil when there are none).
func Values[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return AppendRows(rows, nil, func(r Scanner) (T, error) {
		var v T
		err := r.Scan(&v)
		return v, err
	})
}
