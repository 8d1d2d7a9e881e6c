package test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestAddressThrottle: failed sign-ins of other logins from one address
// (an office behind NAT, a proxy missing from CORE_TRUSTED_PROXIES) do not
// keep out logins that signed in from it before or that carry a valid
// session; unknown logins are slowed with a growing Retry-After, not
// blocked for 15 minutes; the address is logged once with a hint.
func TestAddressThrottle(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t) // admin signed in from 127.0.0.1
		_, _ = s.CreateUser(t, "officer", false)
		admin.Do(t, "POST", "/admin/users", map[string]any{"login": "newcomer", "password": "password-newcomer", "displayName": "Newcomer", "email": "newcomer@example.com"}).Expect(t, 201)
		admin.Do(t, "POST", "/admin/users", map[string]any{"login": "roamer", "password": "password-roamer", "displayName": "Roamer", "email": "roamer@example.com"}).Expect(t, 201)
		roamer := tokenOf(t, loginFrom(t, s, "10.20.0.1", "roamer", "password-roamer")) // a session from elsewhere

		anon := s.Anon()
		for i := range 20 {
			anon.Do(t, "POST", "/auth/login", map[string]any{"login": fmt.Sprintf("guess%02d", i), "password": "bad-password"}).Expect(t, 401)
		}
		for i := range 3 { // the guessing goes on
			_ = anon.Do(t, "POST", "/auth/login", map[string]any{"login": fmt.Sprintf("more%02d", i), "password": "bad-password"})
		}
		s.Login(t, "admin", kit.AdminPassword)
		s.Login(t, "officer", "password-officer")

		// an unknown login waits a growing delay, far below the window
		var waits []int
		for len(waits) < 3 {
			r := anon.Do(t, "POST", "/auth/login", map[string]any{"login": "ghost", "password": "bad-password"})
			if r.Status == 401 {
				continue
			}
			r.Expect(t, 429, "RATE_LIMITED")
			ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || ra < 1 || ra > 60 {
				t.Fatalf("Retry-After %q of an unknown login, want 1..60 s", r.Header.Get("Retry-After"))
			}
			waits = append(waits, ra)
			time.Sleep(time.Duration(ra) * time.Second)
		}
		if waits[2] <= waits[0] {
			t.Fatalf("the delay of unknown logins did not grow: %v", waits)
		}
		// right after an unknown login was let through (the delay is now at
		// least 8 s), a login not known here is refused without a session
		// and passes with a valid session of its own
		for anon.Do(t, "POST", "/auth/login", map[string]any{"login": "ghost", "password": "bad-password"}).Status != 401 {
			time.Sleep(time.Second)
		}
		loginWith(t, s, nil, "roamer", "password-roamer").Expect(t, 429, "RATE_LIMITED")
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/auth/login", strings.NewReader(`{"login":"roamer","password":"password-roamer"}`))
		req.Header.Set("Content-Type", "application/json")
		bearer(s, roamer).Send(t, req).Expect(t, 200)
		s.Login(t, "officer", "password-officer")

		deadline := time.Now().Add(90 * time.Second)
		for {
			r := anon.Do(t, "POST", "/auth/login", map[string]any{"login": "newcomer", "password": "password-newcomer"})
			if r.Status == 200 {
				break
			}
			r.Expect(t, 429, "RATE_LIMITED")
			if time.Now().After(deadline) {
				t.Fatalf("an unknown login with the right password kept getting 429")
			}
			ra, _ := strconv.Atoi(r.Header.Get("Retry-After"))
			time.Sleep(time.Duration(max(ra, 1)) * time.Second)
		}

		logs := s.Logs()
		if n := strings.Count(logs, "failed sign-ins from one address"); n != 1 || !strings.Contains(logs, "CORE_TRUSTED_PROXIES") || !strings.Contains(logs, "127.0.0.1") {
			t.Fatalf("the slowed address was logged %d times (want once, naming it and CORE_TRUSTED_PROXIES):\n%s", n, logs)
		}
	}, "CORE_TRUSTED_PROXIES=127.0.0.1")
}
