package store

import "database/sql"

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
