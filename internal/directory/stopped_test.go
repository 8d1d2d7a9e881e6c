package directory

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"coreportal/internal/fault"
)

// An entry that fails because the run was cancelled or the database was
// lost stops the whole run (nobody may be deactivated after a partial
// pass); an entry's own fault does not.
func TestSyncResultStopsOnOutage(t *testing.T) {
	cases := []struct {
		err  error
		stop bool
	}{
		{fault.Validation("login", "bad"), false},
		{errors.New("some rule"), false},
		{fmt.Errorf("apply: %w", context.Canceled), true},
		{fmt.Errorf("apply: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("apply: %w", syscall.ECONNREFUSED), true},
	}
	for _, c := range cases {
		part := &SyncResult{}
		part.fail("x", c.err)
		res := &SyncResult{}
		res.add(part)
		if (res.stopped != nil) != c.stop || res.Errors != 1 {
			t.Errorf("%v: stopped=%v errors=%d", c.err, res.stopped, res.Errors)
		}
	}
}
