package live

import (
	"strconv"
	"strings"

	"coreportal/internal/fault"
)

// MaxIDs is the most item ids one live stream or sync-state request may name (SPEC.md Limits).
const MaxIDs = 100

// ParseIDs reads the ids query parameter ("1,2,3"): 1 to 100 positive item
// numbers, duplicates removed; anything else is a 400 on field ids.
func ParseIDs(raw string) ([]int64, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, fault.Validation("ids", "ids is required: a comma-separated list of item ids")
	}
	parts := strings.Split(raw, ",")
	if len(parts) > MaxIDs {
		return nil, fault.Validation("ids", "at most %d ids per request", MaxIDs)
	}
	seen := make(map[int64]bool, len(parts))
	out := make([]int64, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n < 1 {
			return nil, fault.Validation("ids", "%q is not an item id", p)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}
