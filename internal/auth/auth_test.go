package auth

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestPasswordHashing(t *testing.T) {
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=7168,t=5,p=1$") {
		t.Fatalf("unexpected hash format %q", h)
	}
	h2, _ := HashPassword("correct horse")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: salt missing")
	}
	cases := []struct {
		name, hash, pw string
		ok             bool
		err            bool
	}{
		{"right", h, "correct horse", true, false},
		{"wrong", h, "correct horsE", false, false},
		{"empty", h, "", false, false},
		{"not argon", "$2a$10$abc", "x", false, true},
		{"garbage", "nonsense", "x", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, err := VerifyPassword(c.hash, c.pw)
			if ok != c.ok || (err != nil) != c.err {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
		})
	}
}

func TestPasswordPolicy(t *testing.T) {
	cases := []struct {
		name, pw string
		ids      []string
		ok       bool
	}{
		{"too short", "1234567", nil, false},
		{"eight characters", "k7#Qx!2m", nil, true},
		{"unicode counts runes", "пароль12", nil, true},
		{"too long", strings.Repeat("x", 257), nil, false},
		{"all white space", "          ", nil, false},
		{"tabs and spaces", " \t \t \t \t ", nil, false},
		{"most common", "12345678", nil, false},
		{"common, other case", "PassWord1", nil, false},
		{"common, rank 10,000", "24081990", nil, false},
		{"equals login", "Maria.Lopez", []string{"maria.lopez", "maria@example.com"}, false},
		{"equals e-mail", "MARIA@example.com", []string{"maria.lopez", "maria@example.com"}, false},
		{"contains login is fine", "maria.lopez-2026-winter", []string{"maria.lopez"}, true},
		{"kit password", "admin-password-1", []string{"admin"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := CheckPasswordPolicy("password", c.pw, c.ids...); (err == nil) != c.ok {
				t.Errorf("%q: err=%v", c.pw, err)
			}
		})
	}
	if n := len(commonPasswords()); n != 10000 {
		t.Fatalf("%d common passwords embedded, want 10000", n)
	}
}

func TestTokens(t *testing.T) {
	secret := []byte(strings.Repeat("s", 32))
	tk, err := NewTokens(secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	good, _, err := tk.Issue("user-1", 3)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewTokens([]byte(strings.Repeat("o", 32)), time.Hour)
	foreign, _, _ := other.Issue("user-1", 3)

	expiredIssuer, _ := NewTokens(secret, time.Hour)
	expiredIssuer.now = func() time.Time { return time.Now().Add(-2 * time.Hour) }
	expired, _, _ := expiredIssuer.Issue("user-1", 3)

	none := unsignedToken(t, "user-1")
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.RegisteredClaims{Subject: "user-1", Issuer: "coreportal",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}).SignedString(secret)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "user-1", Issuer: "coreportal"}).SignedString(secret)

	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", good, true},
		{"other key", foreign, false},
		{"expired", expired, false},
		{"alg none", none, false},
		{"other algorithm", hs512, false},
		{"no expiry", noExp, false},
		{"tampered", good[:len(good)-2] + "xx", false},
		{"garbage", "abc.def.ghi", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := tk.Verify(c.token)
			if (err == nil) != c.ok {
				t.Fatalf("err=%v", err)
			}
			if c.ok && (cl.UserID != "user-1" || cl.Version != 3 || cl.ID == "" || cl.ExpiresAt.IsZero()) {
				t.Fatalf("claims %+v", cl)
			}
		})
	}
	if _, err := NewTokens([]byte("short"), time.Hour); err == nil {
		t.Fatal("short secret accepted")
	}
}

func unsignedToken(t *testing.T, sub string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	exp := time.Now().Add(time.Hour).Unix()
	body := enc.EncodeToString([]byte(`{"sub":"` + sub + `","iss":"coreportal","exp":` + itoa(exp) + `}`))
	return head + "." + body + "."
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestThrottle(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		th := NewThrottle(db)
		th.PairLimit, th.AddressLimit, th.LoginCeiling = 3, 10, 5
		now := time.Unix(1_000_000, 0)
		th.now = func() time.Time { return now }
		fail := func(login, addr string) error {
			a, err := th.Begin(ctx, login, addr)
			if err != nil {
				return err
			}
			return a.Failed(ctx)
		}
		t.Run("pair limit stops the guesser, not the owner elsewhere", func(t *testing.T) {
			for i := 0; i < 3; i++ {
				if err := fail("ann", "10.0.0.1"); err != nil {
					t.Fatalf("failure %d refused: %v", i+1, err)
				}
			}
			if _, err := th.Begin(ctx, "ANN", "10.0.0.1"); !fault.Is(err, fault.CodeRateLimited) {
				t.Fatalf("4th attempt from the same address: %v", err)
			}
			a, err := th.Begin(ctx, "ann", "10.0.0.2")
			if err != nil {
				t.Fatalf("owner from another address refused: %v", err)
			}
			if err := a.Succeeded(ctx); err != nil {
				t.Fatal(err)
			}
			now = now.Add(th.Window)
			if _, err := th.Begin(ctx, "ann", "10.0.0.1"); err != nil {
				t.Fatalf("still refused after the window: %v", err)
			}
		})
		t.Run("cancelled attempts do not count", func(t *testing.T) {
			for i := 0; i < 10; i++ {
				a, err := th.Begin(ctx, "bob", "10.0.0.3")
				if err != nil {
					t.Fatalf("attempt %d: %v", i, err)
				}
				a.Cancel(ctx)
			}
		})
		t.Run("a spray across addresses is spaced by a growing delay", func(t *testing.T) {
			for i := 0; i < 5; i++ {
				if err := fail("cat", fmt.Sprintf("10.1.0.%d", i)); err != nil {
					t.Fatalf("failure %d: %v", i, err)
				}
			}
			_, err := th.Begin(ctx, "cat", "10.1.1.1")
			if !fault.Is(err, fault.CodeRateLimited) {
				t.Fatalf("attempt past the ceiling inside the delay: %v", err)
			}
			now = now.Add(th.BaseDelay)
			if err := fail("cat", "10.1.1.2"); err != nil {
				t.Fatalf("attempt after the delay: %v", err)
			}
			now = now.Add(th.BaseDelay) // the delay doubled
			if _, err := th.Begin(ctx, "cat", "10.1.1.3"); !fault.Is(err, fault.CodeRateLimited) {
				t.Fatalf("delay did not grow: %v", err)
			}
			now = now.Add(th.BaseDelay)
			a, err := th.Begin(ctx, "cat", "10.1.1.3")
			if err != nil {
				t.Fatalf("owner refused after the grown delay: %v", err)
			}
			if err := a.Succeeded(ctx); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("a spray does not hold the owner up on a known address", func(t *testing.T) {
			a, err := th.Begin(ctx, "fay", "10.4.0.1")
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Succeeded(ctx); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 6; i++ {
				if err := fail("fay", fmt.Sprintf("10.4.1.%d", i)); err != nil && !fault.Is(err, fault.CodeRateLimited) {
					t.Fatalf("failure %d: %v", i, err)
				}
			}
			if _, err := th.Begin(ctx, "fay", "10.4.2.1"); !fault.Is(err, fault.CodeRateLimited) {
				t.Fatalf("new address inside the delay: %v", err)
			}
			a, err = th.Begin(ctx, "fay", "10.4.0.1")
			if err != nil {
				t.Fatalf("owner on a known address refused: %v", err)
			}
			if err := a.Succeeded(ctx); err != nil {
				t.Fatal(err)
			}
			now = now.Add(th.KnownFor + time.Minute) // forgotten after KnownFor (and the failures with it)
			for i := 0; i < 6; i++ {
				_ = fail("fay", fmt.Sprintf("10.4.3.%d", i))
			}
			if _, err := th.Begin(ctx, "fay", "10.4.0.1"); !fault.Is(err, fault.CodeRateLimited) {
				t.Fatalf("address still known after KnownFor: %v", err)
			}
		})
		// parallel begins 16 attempts at once and counts those admitted
		parallel := func(login, addr string, then func(*attempt)) int32 {
			var allowed atomic.Int32
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if a, err := th.Begin(ctx, login, addr); err == nil {
						allowed.Add(1)
						then(a)
					}
				}()
			}
			wg.Wait()
			return allowed.Load()
		}
		t.Run("parallel correct sign-ins wait for a slot instead of 429", func(t *testing.T) {
			n := parallel("eve", "10.3.0.1", func(a *attempt) {
				time.Sleep(20 * time.Millisecond) // the password hash
				if err := a.Succeeded(ctx); err != nil {
					t.Error(err)
				}
			})
			if n != 16 {
				t.Fatalf("%d of 16 parallel correct sign-ins passed", n)
			}
			// failures recorded meanwhile still refuse at once
			for i := 0; i < 3; i++ {
				if err := fail("eve", "10.3.0.1"); err != nil {
					t.Fatalf("failure %d refused: %v", i+1, err)
				}
			}
			t0 := time.Now()
			if _, err := th.Begin(ctx, "eve", "10.3.0.1"); !fault.Is(err, fault.CodeRateLimited) || time.Since(t0) > time.Second {
				t.Fatalf("attempt after 3 failures: %v after %s", err, time.Since(t0))
			}
		})
		t.Run("parallel attempts cannot pass the pair limit", func(t *testing.T) {
			th.InFlightWait = 300 * time.Millisecond // the held slots are never given back here
			if n := parallel("dan", "10.2.0.1", func(*attempt) {}); n != 3 {
				t.Fatalf("%d parallel attempts allowed, want 3", n)
			}
		})
		t.Run("delay grows exponentially up to the cap", func(t *testing.T) {
			want := []time.Duration{0, th.BaseDelay, 2 * th.BaseDelay, 4 * th.BaseDelay, th.MaxDelay, th.MaxDelay}
			for i, f := range []int{4, 5, 6, 7, 30, 1000} {
				if got := th.delay(f); got != want[i] {
					t.Errorf("delay(%d) = %v, want %v", f, got, want[i])
				}
			}
		})
	})
}

func TestRevocations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a := NewRevocations(db, bus.NewMemory())
		b := NewRevocations(db, bus.NewMemory()) // another instance, no shared bus
		exp := time.Now().Add(time.Hour)
		if err := a.Revoke(ctx, "jti-1", exp); err != nil {
			t.Fatal(err)
		}
		if err := a.Revoke(ctx, "jti-1", exp); err != nil {
			t.Fatalf("second revoke: %v", err)
		}
		if !a.Revoked("jti-1") || a.Revoked("jti-2") || a.Revoked("") {
			t.Fatal("local deny-list wrong")
		}
		if b.Revoked("jti-1") {
			t.Fatal("b knew before loading")
		}
		if err := b.Load(ctx); err != nil || !b.Revoked("jti-1") {
			t.Fatalf("b did not learn the revocation from the database: %v", err)
		}
		if err := a.Revoke(ctx, "old", time.Now().Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := a.forgetExpired(ctx); err != nil {
			t.Fatal(err)
		}
		if a.Revoked("old") || !a.Revoked("jti-1") {
			t.Fatal("sweep dropped the wrong tokens")
		}
		c := NewRevocations(db, bus.NewMemory())
		if err := c.Load(ctx); err != nil || c.Revoked("old") || !c.Revoked("jti-1") {
			t.Fatalf("fresh load: %v", err)
		}
	})
}

func TestClientAddress(t *testing.T) {
	s := &Service{}
	s.SetTrustedProxies([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")})
	cases := []struct {
		name, remote, xff, want string
	}{
		{"direct client ignores header", "203.0.113.9:5000", "1.2.3.4", "203.0.113.9"},
		{"through trusted proxy", "10.0.0.2:5000", "198.51.100.7", "198.51.100.7"},
		{"spoofed left-most entry ignored", "10.0.0.2:5000", "1.1.1.1, 198.51.100.7", "198.51.100.7"},
		{"chain of trusted proxies", "10.0.0.2:5000", "198.51.100.7, 10.0.0.9", "198.51.100.7"},
		{"garbage header", "10.0.0.2:5000", "nonsense", "10.0.0.2"},
		{"no header", "10.0.0.2:5000", "", "10.0.0.2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.remote
			if c.xff != "" {
				r.Header.Set("X-Forwarded-For", c.xff)
			}
			if got := s.clientAddress(r); got != c.want {
				t.Fatalf("got %q want %q", got, c.want)
			}
		})
	}
}

type fakeAccounts map[string]Account

func (f fakeAccounts) AccountByLogin(_ context.Context, login string) (Account, error) {
	for _, a := range f {
		if a.Login == login {
			return a, nil
		}
	}
	return Account{}, fault.NotFound("user")
}

func (f fakeAccounts) AccountByID(_ context.Context, id string) (Account, error) {
	if a, ok := f[id]; ok {
		return a, nil
	}
	return Account{}, fault.NotFound("user")
}

func TestRecheck(t *testing.T) {
	db := storetest.OpenSQLite(t)
	tk, _ := NewTokens([]byte(strings.Repeat("s", 32)), time.Hour)
	accs := fakeAccounts{
		"u1": {ID: "u1", Login: "ann", IsActive: true, TokenVersion: 2, IsAdmin: true},
		"u2": {ID: "u2", Login: "bob", IsActive: false, TokenVersion: 0},
	}
	s := NewService(accs, tk, db, bus.NewMemory())
	ctx := context.Background()
	if err := s.Revocations().Revoke(ctx, "gone", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	future, past := time.Now().Add(time.Hour), time.Now().Add(-time.Second)
	s.AddCredentialCheck("kit", func(_ context.Context, id string) error {
		if id == "revoked" {
			return fault.Unauthorized("revoked")
		}
		return nil
	})
	cred := func(kind, id string) *Credential { return &Credential{Kind: kind, ID: id} }
	cases := []struct {
		name string
		p    Principal
		ok   bool
	}{
		{"live credential", Principal{UserID: "u1", TokenVersion: 2, Credential: cred("kit", "k1")}, true},
		{"revoked credential", Principal{UserID: "u1", TokenVersion: 2, Credential: cred("kit", "revoked")}, false},
		{"credential of an unknown kind", Principal{UserID: "u1", TokenVersion: 2, Credential: cred("other", "k1")}, false},
		{"valid", Principal{UserID: "u1", TokenID: "t1", TokenVersion: 2, ExpiresAt: future}, true},
		{"expired", Principal{UserID: "u1", TokenID: "t1", TokenVersion: 2, ExpiresAt: past}, false},
		{"signed out", Principal{UserID: "u1", TokenID: "gone", TokenVersion: 2, ExpiresAt: future}, false},
		{"older generation", Principal{UserID: "u1", TokenID: "t1", TokenVersion: 1, ExpiresAt: future}, false},
		{"deactivated", Principal{UserID: "u2", TokenID: "t2", ExpiresAt: future}, false},
		{"deleted", Principal{UserID: "u3", TokenID: "t3", ExpiresAt: future}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			err := s.Recheck(ctx, &p)
			if (err == nil) != c.ok {
				t.Fatalf("err=%v", err)
			}
			if err != nil && !fault.Is(err, fault.CodeUnauthorized) {
				t.Fatalf("not a 401: %v", err)
			}
			if c.ok && (!p.IsAdmin || p.Login != "ann") {
				t.Fatalf("principal not refreshed: %+v", p)
			}
		})
	}
	tok, _, _ := tk.Issue("u1", 2)
	p, err := s.Authenticate(ctx, tok)
	if err != nil || p.TokenID == "" || p.ExpiresAt.IsZero() {
		t.Fatalf("authenticate: %+v %v", p, err)
	}
	if err := s.Logout(WithPrincipal(ctx, p)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, tok); !fault.Is(err, fault.CodeUnauthorized) {
		t.Fatalf("token works after logout: %v", err)
	}
}
