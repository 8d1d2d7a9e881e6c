package auth

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// retryAfter is the retryAfterSeconds of a 429, or -1 for any other answer.
func retryAfter(err error) int {
	fe, ok := fault.As(err)
	if !ok || fe.Code != fault.CodeRateLimited {
		return -1
	}
	n, _ := fe.Details["retryAfterSeconds"].(int)
	return n
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAddressThrottleTrust: past the per-address limit, logins trusted on the
// address (signed in from it, or with a valid session) pass; others are
// spaced by a growing delay, never blocked for the window; the address is
// logged once per window.
func TestAddressThrottleTrust(t *testing.T) {
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	storetest.Run(t, func(t *testing.T, db *store.DB) {
		logs.Reset()
		ctx := context.Background()
		th := NewThrottle(db)
		th.AddressLimit = 10
		now := time.Unix(2_000_000, 0)
		th.now = func() time.Time { return now }
		const office = "10.9.0.1"
		signIn := func(login string) {
			t.Helper()
			a, err := th.Begin(ctx, login, office)
			if err != nil {
				t.Fatalf("%s: %v", login, err)
			}
			if err := a.Succeeded(ctx); err != nil {
				t.Fatal(err)
			}
		}
		signIn("owner")
		for i := range 10 {
			a, err := th.Begin(ctx, fmt.Sprintf("guess%d", i), office)
			if err != nil {
				t.Fatalf("failure %d refused: %v", i+1, err)
			}
			if err := a.Failed(ctx); err != nil {
				t.Fatal(err)
			}
		}

		// each step: who tries, with a session or not, the clock moved first,
		// the wanted answer (0 = admitted, n = 429 with Retry-After n), then
		// whether the admitted attempt fails
		steps := []struct {
			name    string
			login   string
			session bool
			advance time.Duration
			retry   int
			fail    bool
		}{
			{"known login passes the full address", "owner", false, 0, 0, false},
			{"valid session passes", "visitor", true, 0, 0, false},
			{"first unknown login past the limit is admitted", "newbie", false, 0, 0, true},
			{"next unknown one waits the base delay", "stranger", false, 0, 1, false},
			{"after it, one is admitted", "stranger", false, time.Second, 0, true},
			{"the delay doubled", "stranger2", false, time.Second, 1, false},
			{"admitted after two seconds", "stranger2", false, time.Second, 0, true},
			{"then four", "stranger3", false, 0, 4, false},
			{"known login still passes", "owner", false, 0, 0, false},
			{"a new window forgets the failures", "stranger4", false, th.Window, 0, false},
		}
		for _, st := range steps {
			now = now.Add(st.advance)
			begin := th.Begin
			if st.session {
				begin = th.BeginWithSession
			}
			a, err := begin(ctx, st.login, office)
			if got := retryAfter(err); (err == nil && st.retry != 0) || (err != nil && got != st.retry) {
				t.Fatalf("%s: %v (retry %d), want retry %d", st.name, err, got, st.retry)
			}
			if err != nil {
				continue
			}
			if st.fail {
				err = a.Failed(ctx)
			} else {
				err = a.Succeeded(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := strings.Count(logs.String(), "address="+office); n != 1 {
			t.Fatalf("the slowed address was logged %d times in one window, want once:\n%s", n, logs.String())
		}
		if !strings.Contains(logs.String(), "CORE_TRUSTED_PROXIES") {
			t.Fatalf("the warning names no hint about CORE_TRUSTED_PROXIES:\n%s", logs.String())
		}
		if got := backoff(40, th.BaseDelay, th.AddressMaxDelay); got != th.AddressMaxDelay || th.AddressMaxDelay >= th.Window {
			t.Fatalf("address delay capped at %v (window %v)", got, th.Window)
		}
	})
}

// TestPairLimitSparesSessions: five wrong guesses of a login from an address
// refuse further guesses there, but not its owner presenting a valid session
// of that login (a guesser behind the same NAT cannot lock them out).
func TestPairLimitSparesSessions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		th := NewThrottle(db)
		now := time.Unix(3_000_000, 0)
		th.now = func() time.Time { return now }
		const office = "10.9.0.2"
		for i := range th.PairLimit {
			a, err := th.Begin(ctx, "vic", office)
			if err != nil {
				t.Fatalf("guess %d refused: %v", i+1, err)
			}
			if err := a.Failed(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := th.Begin(ctx, "vic", office); retryAfter(err) == 0 {
			t.Fatalf("a sixth guess was admitted: %v", err)
		}
		a, err := th.BeginWithSession(ctx, "vic", office)
		if err != nil {
			t.Fatalf("the owner with a session was refused: %v", err)
		}
		if err := a.Succeeded(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := th.Begin(ctx, "vic", office); retryAfter(err) == 0 {
			t.Fatalf("guesses without a session were admitted again: %v", err)
		}
	})
}
