package filelock

import (
	"context"
	"errors"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestLocks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		s := New(db)
		s.now = func() time.Time { return now }
		const file, alice, bob = "f1", "u-alice", "u-bob"
		l, err := s.Lock(ctx, Request{FileID: file, Holder: alice, Token: "t1", Kind: WebDAV, TTL: time.Minute})
		if err != nil || l.Holder != alice || !l.Expires.Equal(now.Add(time.Minute)) {
			t.Fatalf("lock: %+v %v", l, err)
		}
		cases := []struct {
			name string
			err  error
			code fault.Code
		}{
			{"other token", func() error {
				_, err := s.Lock(ctx, Request{FileID: file, Holder: bob, Token: "t2", Kind: WOPI})
				return err
			}(), fault.CodeFileLocked},
			{"bob writes", s.CheckWrite(ctx, file, bob), fault.CodeFileLocked},
			{"bob unlocks", s.Unlock(ctx, file, "t2"), fault.CodeFileLocked},
			{"bad kind", func() error {
				_, err := s.Lock(ctx, Request{FileID: "f2", Holder: bob, Token: "t2", Kind: "x"})
				return err
			}(), fault.CodeValidation},
		}
		for _, c := range cases {
			if !fault.Is(c.err, c.code) {
				t.Errorf("%s: %v, want %s", c.name, c.err, c.code)
			}
		}
		if fe, _ := fault.As(s.CheckWrite(ctx, file, bob)); fe == nil || fe.Details["holder"] != alice {
			t.Fatalf("holder not named: %v", fe)
		}
		if err := s.CheckWrite(ctx, file, alice); err != nil {
			t.Fatalf("holder refused: %v", err)
		}
		if _, err := s.Refresh(ctx, file, "t1", time.Hour); err != nil {
			t.Fatal(err)
		}
		now = now.Add(30 * time.Minute) // still live after the refresh
		if g, _ := s.Get(ctx, file); g == nil || g.Token != "t1" {
			t.Fatalf("get after refresh: %+v", g)
		}
		if m, err := s.Of(ctx, []string{file, "nope"}); err != nil || len(m) != 1 {
			t.Fatalf("of: %v %v", m, err)
		}
		now = now.Add(31 * time.Minute) // expired
		if g, _ := s.Get(ctx, file); g != nil {
			t.Fatalf("expired lock still live: %+v", g)
		}
		if _, err := s.Lock(ctx, Request{FileID: file, Holder: bob, Token: "t2", Kind: WOPI, TTL: time.Minute}); err != nil {
			t.Fatalf("lock after expiry: %v", err)
		}
		if err := s.Unlock(ctx, file, "t2"); err != nil {
			t.Fatal(err)
		}
		if err := s.Unlock(ctx, file, "t2"); !errors.Is(err, ErrNoLock) {
			t.Fatalf("second unlock: %v", err)
		}
		if err := s.Purge(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
