package auth

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"strings"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// Throttle slows password guessing (OWASP ASVS 5.0 6.3.1) without giving an
// attacker a lever to lock anyone out. Its counters live in the database, so
// every instance shares them:
//
//   - per (login, client address): PairLimit failures per Window, then 429 for
//     that pair until the window ends: the guesser is stopped, the owner
//     signing in from elsewhere is not;
//   - per client address across logins: AddressLimit failures per Window;
//   - per login across addresses: after LoginCeiling failures within
//     LoginWindow, attempts on the login are spaced by a delay that doubles
//     with each further failure (BaseDelay, 2×, 4× … up to MaxDelay); an
//     attempt inside the delay gets 429 with details.retryAfterSeconds. A
//     spray from many addresses is slowed; an address the login signed in
//     from within KnownFor is not held up by the delay (one wrong guess
//     every 30 s from elsewhere would otherwise keep the owner out for
//     good), so the owner is stopped only on new addresses.
type Throttle struct {
	st *sessionStore

	PairLimit    int
	AddressLimit int
	Window       time.Duration
	LoginCeiling int
	LoginWindow  time.Duration
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	// InFlightWait is how long an attempt waits for a slot that attempts in
	// flight hold before it is refused.
	InFlightWait time.Duration
	// KnownFor is how long an address a login signed in from lets it past
	// the per-login delay.
	KnownFor time.Duration

	now func() time.Time
}

// NewThrottle builds the throttle with its defaults on db.
func NewThrottle(db *store.DB) *Throttle {
	return &Throttle{st: &sessionStore{db: db}, PairLimit: 5, AddressLimit: 20, Window: 15 * time.Minute,
		LoginCeiling: 20, LoginWindow: time.Hour, BaseDelay: time.Second, MaxDelay: 30 * time.Second, InFlightWait: 5 * time.Second, KnownFor: 30 * 24 * time.Hour, now: time.Now}
}

// attempt is one sign-in attempt admitted by Begin.
type attempt struct {
	t           *Throttle
	pair, addr  string
	login       string
	known       string // the login signed in from this address before
	windowStart int64
}

func throttled(retry time.Duration) error {
	secs := int(math.Ceil(retry.Seconds()))
	return fault.New(fault.CodeRateLimited, "too many failed sign-in attempts; try again later").With("retryAfterSeconds", max(1, secs))
}

// AddressKey is the client address as the throttle counts it: an IPv6
// address by its /64 (one subscriber or host is normally given a whole /64,
// so counting single addresses would hand a guesser 2^64 fresh budgets), an
// IPv4-mapped IPv6 address as IPv4, anything else (IPv4, not an address)
// as it is.
func AddressKey(address string) string {
	a, err := netip.ParseAddr(strings.TrimSpace(address))
	if err != nil {
		return address
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
}

// Begin admits an attempt of login from address, or answers 429 RATE_LIMITED.
func (t *Throttle) Begin(ctx context.Context, login, address string) (*attempt, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	address = AddressKey(address)
	now := t.now()
	ms := now.UnixMilli()
	a := &attempt{t: t, pair: "p:" + login + "|" + address, addr: "a:" + address, login: "l:" + login, known: "k:" + login + "|" + address,
		windowStart: now.Add(-t.Window).UnixMilli()}
	if err := t.take(ctx, a.pair, t.PairLimit, a.windowStart); err != nil {
		return nil, err
	}
	if err := t.take(ctx, a.addr, t.AddressLimit, a.windowStart); err != nil {
		_ = t.st.settle(context.WithoutCancel(ctx), a.pair, false, false)
		return nil, err
	}
	failures, nextAt, err := t.st.slot(ctx, a.login, now.Add(-t.LoginWindow).UnixMilli())
	if err != nil {
		a.Cancel(ctx)
		return nil, err
	}
	if failures < t.LoginCeiling {
		return a, nil
	}
	// the owner signing in from an address they signed in from before is
	// not held up by a spray on their login from elsewhere (the pair limit
	// still stops guessing from that address)
	if ok, err := t.st.known(ctx, a.known, ms); err != nil || ok {
		if err != nil {
			a.Cancel(ctx)
			return nil, err
		}
		return a, nil
	}
	if ms < nextAt {
		a.Cancel(ctx)
		return nil, throttled(time.Duration(nextAt-ms) * time.Millisecond)
	}
	// one attempt per delay: the first to move next_at gets the slot
	claimed, err := t.st.claim(ctx, a.login, nextAt, ms+t.delay(failures).Milliseconds())
	if err != nil || !claimed {
		a.Cancel(ctx)
		if err != nil {
			return nil, err
		}
		return nil, throttled(t.delay(failures))
	}
	return a, nil
}

// delay is the spacing of attempts on a login with failures in its window.
func (t *Throttle) delay(failures int) time.Duration {
	n := failures - t.LoginCeiling
	if n < 0 {
		return 0
	}
	if n > 30 {
		return t.MaxDelay
	}
	return min(t.BaseDelay<<n, t.MaxDelay)
}

// take reserves a slot of key for an attempt. Recorded failures that fill
// the window refuse it at once; slots held by attempts in flight (several
// correct sign-ins at the same moment, a script starting workers) are
// waited for, up to InFlightWait, polling every 20-100 ms.
func (t *Throttle) take(ctx context.Context, key string, limit int, windowStart int64) error {
	wait := 20 * time.Millisecond
	deadline := time.Now().Add(t.InFlightWait) // the real clock: tests freeze t.now
	for {
		ok, failures, err := t.st.reserve(ctx, key, limit, t.now().UnixMilli(), windowStart)
		if err != nil || ok {
			return err
		}
		if failures >= limit {
			return throttled(t.Window)
		}
		if !time.Now().Add(wait).Before(deadline) {
			return throttled(time.Second) // only busy: a slot frees within moments
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sign-in throttle: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Failed counts a wrong password: the pair's and the address's slots become
// failures, the login's failures grow (and with them its delay).
func (a *attempt) Failed(ctx context.Context) error {
	var err error
	for _, k := range []string{a.pair, a.addr} { // both, even when one fails: no slot stays held
		if serr := a.t.st.settle(ctx, k, true, false); err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	now := a.t.now()
	n, _, err := a.t.st.count(ctx, a.login, math.MaxInt32, now.UnixMilli(), now.Add(-a.t.LoginWindow).UnixMilli())
	if err != nil {
		return err
	}
	if n >= a.t.LoginCeiling {
		return a.t.st.delay(ctx, a.login, now.Add(a.t.delay(n)).UnixMilli())
	}
	return nil
}

// Succeeded forgets the pair's failures, gives back the address slot and
// remembers the address as known to the login for KnownFor. The login's
// failures stay: a spray still going on stays slowed.
func (a *attempt) Succeeded(ctx context.Context) error {
	if err := a.t.st.settle(ctx, a.pair, false, true); err != nil {
		return err
	}
	if err := a.t.st.settle(ctx, a.addr, false, false); err != nil {
		return err
	}
	now := a.t.now()
	return a.t.st.remember(ctx, a.known, now.UnixMilli(), now.Add(a.t.KnownFor).UnixMilli())
}

// Cancel gives back the attempt's slots (it was not a wrong password).
func (a *attempt) Cancel(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	_ = a.t.st.settle(ctx, a.pair, false, false)
	_ = a.t.st.settle(ctx, a.addr, false, false)
}
