package test

import (
	"testing"
	"time"

	"coreportal/test/kit"
)

// Two instances on one database with CORE_BUS_URL=redis://: a change made
// through one reaches the other over Redis at once (here: a deactivated
// user's token stops working on the other instance without waiting for its
// 10 s cache), and the instances shut down in order.
func TestPlatformRedisBusBetweenInstances(t *testing.T) {
	t.Parallel()
	lockRedisBus(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dir := b.DatabaseURL(t), t.TempDir()
			a := kit.StartWith(t, dbURL, dir, "serve", "CORE_BUS_URL=redis://127.0.0.1:6379/0")
			bb := kit.StartWith(t, dbURL, dir, "serve", "CORE_BUS_URL=redis://127.0.0.1:6379/0")
			_, id := a.CreateUser(t, "roamer", false)
			onB := bb.Login(t, "roamer", "password-roamer")
			onB.Do(t, "GET", "/auth/me", nil).Expect(t, 200) // B caches the account
			a.Admin(t).Do(t, "PATCH", "/admin/users/"+id, map[string]any{"isActive": false}).Expect(t, 200)
			deadline := time.Now().Add(3 * time.Second)
			for onB.Do(t, "GET", "/auth/me", nil).Status != 401 {
				if time.Now().After(deadline) {
					t.Fatal("instance B still accepts the token 3 s after A deactivated the user: the change did not travel over Redis")
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, s := range []*kit.Server{a, bb} {
				if err := s.Stop(); err != nil {
					t.Fatalf("stop: %v\n%s", err, s.Logs())
				}
			}
		})
	}
}

// A shared bus that cannot be reached does not keep the service from starting.
func TestPlatformStartsWithRedisDown(t *testing.T) {
	t.Parallel()
	s := kit.Start(t, kit.Backends(t)[0], "CORE_BUS_URL=redis://127.0.0.1:1/0")
	s.Admin(t).Do(t, "GET", "/services", nil).Expect(t, 200)
}
