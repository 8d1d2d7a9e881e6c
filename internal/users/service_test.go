package users

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/auth"
	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/principals"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestUsers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := NewService(db, bus.NewMemory())
		gen, err := svc.Bootstrap(ctx, "admin", "")
		if err != nil || len(gen) < 16 {
			t.Fatalf("bootstrap: gen=%q err=%v", gen, err)
		}
		if again, err := svc.Bootstrap(ctx, "admin", ""); err != nil || again != "" {
			t.Fatalf("second bootstrap: %q %v", again, err)
		}
		seed, err := svc.AccountByLogin(ctx, "ADMIN")
		if err != nil || !seed.IsAdmin {
			t.Fatalf("seed admin lookup: %+v %v", seed, err)
		}
		seedP := &auth.Principal{UserID: seed.ID, IsAdmin: true}

		mk := func(login string, admin bool) *User {
			u, err := svc.Create(ctx, NewUser{Login: login, Password: "password-1", DisplayName: "Юлия " + login, Email: login + "@example.com", IsCoreAdmin: admin})
			if err != nil {
				t.Fatalf("create %s: %v", login, err)
			}
			return u
		}
		ann := mk("ann", true)
		bob := mk("bob", false)

		t.Run("create validation", func(t *testing.T) {
			cases := []struct {
				name  string
				in    NewUser
				code  fault.Code
				field string
			}{
				{"duplicate login ignores case", NewUser{Login: "ANN", Password: "password-1"}, fault.CodeConflict, "login"},
				{"empty login", NewUser{Login: " ", Password: "password-1"}, fault.CodeValidation, "login"},
				{"bad characters", NewUser{Login: "a b", Password: "password-1"}, fault.CodeValidation, "login"},
				{"reserved", NewUser{Login: "Core-System", Password: "password-1"}, fault.CodeValidation, "login"},
				{"short password", NewUser{Login: "zed", Password: "short"}, fault.CodeValidation, "password"},
				{"bad email", NewUser{Login: "zed", Password: "password-1", Email: "nope"}, fault.CodeValidation, "email"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					_, err := svc.Create(ctx, c.in)
					fe, ok := fault.As(err)
					if !ok || fe.Code != c.code || fe.Details["field"] != c.field {
						t.Fatalf("err=%v", err)
					}
				})
			}
		})

		t.Run("list filters and never shows the system account", func(t *testing.T) {
			all, total, err := svc.List(ctx, "", nil, 0, 50)
			if err != nil || total != 3 || len(all) != 3 {
				t.Fatalf("total=%d len=%d err=%v", total, len(all), err)
			}
			yes, no := true, false
			cases := []struct {
				q     string
				admin *bool
				want  int
			}{
				{"юлия", nil, 2}, {"BOB@EXAMPLE", nil, 1}, {"", &yes, 2}, {"", &no, 1}, {"%", nil, 0}, {"zzz", nil, 0},
			}
			for _, c := range cases {
				_, n, err := svc.List(ctx, c.q, c.admin, 0, 50)
				if err != nil || n != c.want {
					t.Errorf("q=%q admin=%v: n=%d err=%v", c.q, c.admin, n, err)
				}
			}
			page, total, _ := svc.List(ctx, "", nil, 2, 2)
			if total != 3 || len(page) != 1 {
				t.Fatalf("paging: total=%d len=%d", total, len(page))
			}
		})

		t.Run("admin flag protections", func(t *testing.T) {
			no := false
			annP := &auth.Principal{UserID: ann.ID, IsAdmin: true}
			_, err := svc.Update(ctx, annP, ann.ID, Patch{IsCoreAdmin: &no})
			if !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("self removal: %v", err)
			}
			_, err = svc.Update(ctx, annP, seed.ID, Patch{IsCoreAdmin: &no})
			if !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("seed removal: %v", err)
			}
			if _, err := svc.Update(ctx, seedP, ann.ID, Patch{IsCoreAdmin: &no}); err != nil {
				t.Fatalf("ordinary removal: %v", err)
			}
			// The seed can never be demoted, so "last administrator" is tested with the seed inactive.
			carl := mk("carl", true)
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET is_active = ? WHERE id = ?", false, seed.ID); err != nil {
				t.Fatal(err)
			}
			_, err = svc.Update(ctx, &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}, carl.ID, Patch{IsCoreAdmin: &no})
			if !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("last admin removal: %v", err)
			}
			_, err = svc.Update(ctx, &auth.Principal{UserID: uuid.NewString(), IsAdmin: true}, carl.ID, Patch{IsActive: &no})
			if !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("last admin deactivation: %v", err)
			}
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET is_active = ? WHERE id = ?", true, seed.ID); err != nil {
				t.Fatal(err)
			}
		})

		t.Run("deactivation reaches the account cache", func(t *testing.T) {
			acc, err := svc.AccountByID(ctx, bob.ID)
			if err != nil || !acc.IsActive {
				t.Fatalf("%+v %v", acc, err)
			}
			no := false
			if _, err := svc.Update(ctx, seedP, bob.ID, Patch{IsActive: &no}); err != nil {
				t.Fatal(err)
			}
			acc, _ = svc.AccountByID(ctx, bob.ID)
			if acc.IsActive {
				t.Fatal("cache kept the active flag after deactivation")
			}
		})

		t.Run("reset password", func(t *testing.T) {
			if err := svc.ResetPassword(ctx, ann.ID, "new-password-1"); err != nil {
				t.Fatal(err)
			}
			acc, _ := svc.AccountByLogin(ctx, "ann")
			if ok, _ := auth.VerifyPassword(acc.PasswordHash, "new-password-1"); !ok {
				t.Fatal("new password not stored")
			}
			if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET auth_source = 'domain' WHERE id = ?", ann.ID); err != nil {
				t.Fatal(err)
			}
			if err := svc.ResetPassword(ctx, ann.ID, "new-password-2"); !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("domain user reset: %v", err)
			}
			if err := svc.ResetPassword(ctx, uuid.NewString(), "new-password-2"); !fault.Is(err, fault.CodeNotFound) {
				t.Fatalf("missing user: %v", err)
			}
		})
	})
}

// TestNamesFollowTheBus: a user change announced on the bus (by another
// instance) drops the user's display name from the principal name cache.
func TestNamesFollowTheBus(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := bus.NewMemory()
		defer b.Close()
		svc := NewService(db, b)
		go svc.Listen(ctx)
		u, err := svc.Create(ctx, NewUser{Login: "bus", Password: "password-1", DisplayName: "Before"})
		if err != nil {
			t.Fatal(err)
		}
		names := principals.For(db)
		if m, err := names.Users(ctx, []string{u.ID}); err != nil || m[u.ID] != "Before" {
			t.Fatalf("names %v %v", m, err)
		}
		// another instance renamed the user: the row changed, this cache did not hear of it yet
		if _, err := db.W(ctx).ExecContext(ctx, "UPDATE users SET display_name = ? WHERE id = ?", "After", u.ID); err != nil {
			t.Fatal(err)
		}
		if m, _ := names.Users(ctx, []string{u.ID}); m[u.ID] != "Before" {
			t.Fatalf("cached name expected, got %v", m)
		}
		time.Sleep(50 * time.Millisecond) // the listener subscribes
		if err := b.Publish(ctx, changedTopic, []byte(u.ID)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			m, err := names.Users(ctx, []string{u.ID})
			if err != nil {
				t.Fatal(err)
			}
			if m[u.ID] == "After" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("name after the bus message: %v", m)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
