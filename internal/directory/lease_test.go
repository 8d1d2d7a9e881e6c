package directory

import (
	"context"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/settings"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// One instance syncs at a time: a live lease refuses a second sync with 409,
// a released or expired one is taken.
func TestSyncLease(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, b := New(db, settings.New(db), nil, nil, nil, nil), New(db, settings.New(db), nil, nil, nil, nil)
		release, err := a.lease(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.lease(ctx); !fault.Is(err, fault.CodeConflict) {
			t.Fatalf("second lease: %v", err)
		}
		release()
		releaseB, err := b.lease(ctx)
		if err != nil {
			t.Fatalf("after release: %v", err)
		}
		_ = releaseB // a crashed holder: never released
		a.now = func() time.Time { return time.Now().Add(leaseTTL + time.Minute) }
		if _, err := a.lease(ctx); err != nil {
			t.Fatalf("expired lease not taken: %v", err)
		}
	})
}
