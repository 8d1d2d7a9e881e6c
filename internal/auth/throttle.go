package auth

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"strings"
	"sync"
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
//   - per client address across logins: past AddressLimit failures in a
//     Window, attempts of logins that are not trusted on that address are
//     spaced by a delay that doubles with each further failure (BaseDelay,
//     2×, 4× … up to AddressMaxDelay), never blocked outright; a login is
//     trusted on an address it signed in from within KnownFor, or when the
//     attempt carries a valid session of that login: one office behind one
//     address (NAT, a proxy missing from CORE_TRUSTED_PROXIES) cannot be kept
//     out by someone guessing from the same address. The first slowed
//     attempt of an address in a window is logged as a warning naming it;
//   - per login across addresses: after LoginCeiling failures within
//     LoginWindow, attempts on the login are spaced by a delay that doubles
//     with each further failure (BaseDelay, 2×, 4× … up to MaxDelay); an
//     attempt inside the delay gets 429 with details.retryAfterSeconds. A
//     spray from many addresses is slowed; a trusted login is not held up
//     by the delay (one wrong guess every 30 s from elsewhere would
//     otherwise keep the owner out for good), so the owner is stopped only
//     on new addresses.
type Throttle struct {
	st *sessionStore

	PairLimit    int
	AddressLimit int
	Window       time.Duration
	LoginCeiling int
	LoginWindow  time.Duration
	BaseDelay    time.Duration
	MaxDelay     time.Duration
	// AddressMaxDelay caps the spacing of untrusted attempts from an address
	// past AddressLimit failures.
	AddressMaxDelay time.Duration
	// InFlightWait is how long an attempt waits for a slot that attempts in
	// flight hold before it is refused.
	InFlightWait time.Duration
	// KnownFor is how long an address a login signed in from lets it past
	// the per-login delay.
	KnownFor time.Duration

	now func() time.Time

	warned warnings
}

// NewThrottle builds the throttle with its defaults on db.
func NewThrottle(db *store.DB) *Throttle {
	return &Throttle{st: &sessionStore{db: db}, PairLimit: 5, AddressLimit: 20, Window: 15 * time.Minute,
		LoginCeiling: 20, LoginWindow: time.Hour, BaseDelay: time.Second, MaxDelay: 30 * time.Second, AddressMaxDelay: time.Minute, InFlightWait: 15 * time.Second, KnownFor: 30 * 24 * time.Hour, now: time.Now}
}

// attempt is one sign-in attempt admitted by Begin.
type attempt struct {
	t           *Throttle
	pair, addr  string
	address     string
	login       string
	known       string // key of "the login signed in from this address"
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
	return t.begin(ctx, login, address, false)
}

// BeginWithSession is Begin for a caller that presents a valid session of
// login: the login is trusted on the address, as if it had signed in from it.
func (t *Throttle) BeginWithSession(ctx context.Context, login, address string) (*attempt, error) {
	return t.begin(ctx, login, address, true)
}

func (t *Throttle) begin(ctx context.Context, login, address string, session bool) (*attempt, error) {
	login = strings.ToLower(strings.TrimSpace(login))
	address = AddressKey(address)
	now := t.now()
	a := &attempt{t: t, pair: "p:" + login + "|" + address, addr: "a:" + address, address: address, login: "l:" + login,
		known: "k:" + login + "|" + address, windowStart: now.Add(-t.Window).UnixMilli()}
	// A caller holding a valid session of login is its owner, not a guesser:
	// guesses of others from the same address do not keep them out.
	pairLimit := t.PairLimit
	if session {
		pairLimit = math.MaxInt32
	}
	if full, err := t.take(ctx, a.pair, pairLimit, a.windowStart); err != nil || full {
		if err == nil {
			err = throttled(t.Window)
		}
		return nil, err
	}
	trusted := session
	if !trusted {
		ok, err := t.st.known(ctx, a.known, now.UnixMilli())
		if err != nil {
			_ = t.st.settle(context.WithoutCancel(ctx), a.pair, false, false)
			return nil, err
		}
		trusted = ok
	}
	if err := t.takeAddress(ctx, a, trusted, now); err != nil {
		_ = t.st.settle(context.WithoutCancel(ctx), a.pair, false, false)
		return nil, err
	}
	// a trusted login is not held up by a spray on it from elsewhere (the
	// pair limit still stops guessing from this address)
	if trusted {
		return a, nil
	}
	if err := t.spaceLogin(ctx, a, now); err != nil {
		a.Cancel(ctx)
		return nil, err
	}
	return a, nil
}

// takeAddress reserves the address's slot. A trusted login always gets one
// (its failures still count for the address); others get one while the
// address's failures stay under AddressLimit, past it one per growing delay.
func (t *Throttle) takeAddress(ctx context.Context, a *attempt, trusted bool, now time.Time) error {
	if !trusted {
		full, err := t.take(ctx, a.addr, t.AddressLimit, a.windowStart)
		if err != nil || !full {
			return err
		}
		if err := t.spaceAddress(ctx, a, now); err != nil {
			return err
		}
	}
	if _, _, err := t.st.reserve(ctx, a.addr, math.MaxInt32, now.UnixMilli(), a.windowStart); err != nil {
		return err
	}
	return nil
}

// spaceAddress admits one untrusted attempt per delay from an address whose
// failures fill its window: the first to move the address's next_at gets it.
func (t *Throttle) spaceAddress(ctx context.Context, a *attempt, now time.Time) error {
	ms := now.UnixMilli()
	failures, nextAt, err := t.st.slot(ctx, a.addr, a.windowStart)
	if err != nil {
		return err
	}
	t.warn(ctx, a.address, failures, now)
	if ms < nextAt {
		return throttled(time.Duration(nextAt-ms) * time.Millisecond)
	}
	d := backoff(failures-t.AddressLimit, t.BaseDelay, t.AddressMaxDelay)
	claimed, err := t.st.claim(ctx, a.addr, nextAt, ms+d.Milliseconds())
	if err != nil {
		return err
	}
	if !claimed {
		return throttled(d)
	}
	return nil
}

// spaceLogin applies the per-login delay past LoginCeiling failures.
func (t *Throttle) spaceLogin(ctx context.Context, a *attempt, now time.Time) error {
	ms := now.UnixMilli()
	failures, nextAt, err := t.st.slot(ctx, a.login, now.Add(-t.LoginWindow).UnixMilli())
	if err != nil || failures < t.LoginCeiling {
		return err
	}
	if ms < nextAt {
		return throttled(time.Duration(nextAt-ms) * time.Millisecond)
	}
	// one attempt per delay: the first to move next_at gets the slot
	claimed, err := t.st.claim(ctx, a.login, nextAt, ms+t.delay(failures).Milliseconds())
	if err != nil {
		return err
	}
	if !claimed {
		return throttled(t.delay(failures))
	}
	return nil
}

// delay is the spacing of attempts on a login with failures in its window.
func (t *Throttle) delay(failures int) time.Duration {
	return backoff(failures-t.LoginCeiling, t.BaseDelay, t.MaxDelay)
}

// backoff is base doubled n times, capped at ceiling; 0 for a negative n.
func backoff(n int, base, ceiling time.Duration) time.Duration {
	if n < 0 {
		return 0
	}
	if n > 30 {
		return ceiling
	}
	return min(base<<n, ceiling)
}

// take reserves a slot of key for an attempt. Recorded failures that fill
// the window refuse it at once (full); slots held by attempts in flight
// (several correct sign-ins at the same moment, a script starting workers)
// are waited for, up to InFlightWait, polling every 20-100 ms.
func (t *Throttle) take(ctx context.Context, key string, limit int, windowStart int64) (full bool, err error) {
	wait := 20 * time.Millisecond
	deadline := time.Now().Add(t.InFlightWait) // the real clock: tests freeze t.now
	for {
		ok, failures, err := t.st.reserve(ctx, key, limit, t.now().UnixMilli(), windowStart)
		if err != nil || ok {
			return false, err
		}
		if failures >= limit {
			return true, nil
		}
		if !time.Now().Add(wait).Before(deadline) {
			return false, throttled(time.Second) // only busy: a slot frees within moments
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("sign-in throttle: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// warnings remembers when this instance last reported each slowed address.
type warnings struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// warn logs, once per Window and address, that sign-ins from address are
// being slowed: many users behind one address usually means a reverse
// proxy that CORE_TRUSTED_PROXIES does not name.
func (t *Throttle) warn(ctx context.Context, address string, failures int, now time.Time) {
	w := &t.warned
	w.mu.Lock()
	last, seen := w.last[address]
	fresh := !seen || now.Sub(last) >= t.Window
	if fresh {
		if w.last == nil {
			w.last = map[string]time.Time{}
		}
		if len(w.last) >= 10000 {
			for k, v := range w.last {
				if now.Sub(v) >= t.Window {
					delete(w.last, k)
				}
			}
		}
		w.last[address] = now
	}
	w.mu.Unlock()
	if fresh {
		slog.WarnContext(ctx, "sign-in throttle: failed sign-ins from one address fill its window; attempts of logins not known on it are slowed",
			"address", address, "failures", failures, "window", t.Window.String(),
			"hint", "if many users reach the portal through this address (a reverse proxy or load balancer), name it in CORE_TRUSTED_PROXIES so that X-Forwarded-For tells them apart")
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

// Held answers 429 RATE_LIMITED when the pair (login, address) has used up
// its failures in the window, without taking a slot: a remembered good
// password (WebDAV Basic) must not answer where sign-in would refuse.
func (t *Throttle) Held(ctx context.Context, login, address string) error {
	login = strings.ToLower(strings.TrimSpace(login))
	now := t.now()
	failures, _, err := t.st.slot(ctx, "p:"+login+"|"+AddressKey(address), now.Add(-t.Window).UnixMilli())
	if err != nil {
		return err
	}
	if failures >= t.PairLimit {
		return throttled(t.Window)
	}
	return nil
}
