package directory

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/fault"
)

// leaseKey names the settings row that lets one instance sync at a time;
// its value is "<expiry unix>:<holder>".
const leaseKey = "directory.sync_lease"

// leaseTTL bounds how long a crashed instance keeps others from syncing.
const leaseTTL = 30 * time.Minute

// lease takes the cross-instance sync lease (409 while another instance
// holds a live one) and returns its release.
func (s *Service) lease(ctx context.Context) (func(), error) {
	cur, _, err := s.settings.Get(ctx, leaseKey)
	if err != nil {
		return nil, err
	}
	if exp, _, ok := strings.Cut(cur, ":"); ok {
		if t, err := strconv.ParseInt(exp, 10, 64); err == nil && s.now().Unix() < t {
			return nil, fault.Conflict("a directory sync is already running on another instance")
		}
	}
	mine := strconv.FormatInt(s.now().Add(leaseTTL).Unix(), 10) + ":" + uuid.NewString()
	won, err := s.settings.Swap(ctx, leaseKey, cur, mine)
	if err != nil {
		return nil, err
	}
	if !won {
		return nil, fault.Conflict("a directory sync is already running on another instance")
	}
	return func() {
		if _, err := s.settings.Swap(context.WithoutCancel(ctx), leaseKey, mine, ""); err != nil {
			slog.WarnContext(ctx, "release the directory sync lease", "err", err)
		}
	}, nil
}
