package principals

import (
	"context"
	"fmt"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Limits of the subject search.
const (
	SearchMinQuery     = 2
	SearchDefaultLimit = 15
	SearchMaxLimit     = 20
)

// Subject is one user or group found by Search: what a picker shows and
// nothing more (users: login as subtitle and email; groups: description).
type Subject struct {
	PrincipalType string `json:"principalType" enum:"user,group"`
	ID            string `json:"id" format:"uuid"`
	Display       string `json:"display" doc:"display name of a user, name of a group"`
	Subtitle      string `json:"subtitle,omitempty" doc:"login of a user, description of a group"`
	Email         string `json:"email,omitempty" doc:"email of a user"`
}

// SearchQuery is a subject search: q (trimmed, at least SearchMinQuery
// characters), the kinds wanted and the most subjects to answer.
type SearchQuery struct {
	Q     string
	Users bool
	Group bool
	Limit int
}

// ParseSearch checks the parameters of a subject search: q of at least
// SearchMinQuery characters, types a comma list of user and group (empty:
// both), limit 1..SearchMaxLimit (0: SearchDefaultLimit).
func ParseSearch(q, types string, limit int) (SearchQuery, error) {
	sq := SearchQuery{Q: strings.TrimSpace(q), Limit: limit}
	if len([]rune(sq.Q)) < SearchMinQuery {
		return sq, fault.Validation("q", "q must have at least %d characters", SearchMinQuery)
	}
	if sq.Limit == 0 {
		sq.Limit = SearchDefaultLimit
	}
	if sq.Limit < 1 || sq.Limit > SearchMaxLimit {
		return sq, fault.Validation("limit", "limit must be between 1 and %d", SearchMaxLimit)
	}
	if strings.TrimSpace(types) == "" {
		types = User + "," + Group
	}
	for _, t := range strings.Split(types, ",") {
		switch strings.TrimSpace(t) {
		case User:
			sq.Users = true
		case Group:
			sq.Group = true
		default:
			return sq, fault.Validation("types", "types must list user and/or group, separated by commas")
		}
	}
	return sq, nil
}

// Search finds active, non-system users (display name, login, email) and
// groups (name, description) whose search text contains q; users first,
// each kind ordered by name, at most q.Limit in all.
func Search(ctx context.Context, db *store.DB, q SearchQuery) ([]Subject, error) {
	like := store.Like(strings.ToLower(q.Q))
	out := []Subject{}
	if q.Users {
		rows, err := db.Q(ctx).QueryContext(ctx, `SELECT id, display_name, login, email FROM users
			WHERE search_text LIKE ? ESCAPE '\' AND is_system = ? AND is_active = ? ORDER BY display_name, login LIMIT ?`,
			like, false, true, q.Limit)
		if err != nil {
			return nil, fmt.Errorf("search users: %w", err)
		}
		for rows.Next() {
			s := Subject{PrincipalType: User}
			if err := rows.Scan(&s.ID, &s.Display, &s.Subtitle, &s.Email); err != nil {
				rows.Close()
				return nil, fmt.Errorf("search users: %w", err)
			}
			out = append(out, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search users: %w", err)
		}
	}
	if n := q.Limit - len(out); n > 0 && q.Group {
		rows, err := db.Q(ctx).QueryContext(ctx, `SELECT id, name, description FROM groups
			WHERE search_text LIKE ? ESCAPE '\' ORDER BY name LIMIT ?`, like, n)
		if err != nil {
			return nil, fmt.Errorf("search groups: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			s := Subject{PrincipalType: Group}
			if err := rows.Scan(&s.ID, &s.Display, &s.Subtitle); err != nil {
				return nil, fmt.Errorf("search groups: %w", err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("search groups: %w", err)
		}
	}
	return out, nil
}
