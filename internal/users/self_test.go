package users

import (
	"context"
	"testing"

	"coreportal/internal/bus"
	"coreportal/internal/fault"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestSelfService(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		svc := NewService(db, bus.NewMemory())
		local, err := svc.Create(ctx, NewUser{Login: "carol", Password: "password-1", Email: "carol@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		dom, _, err := svc.ApplyDirectoryEntry(ctx, DirectoryEntry{ExternalID: "guid-dan", Login: "dan", DisplayName: "Dan"})
		if err != nil {
			t.Fatal(err)
		}

		t.Run("domain accounts keep the directory's password", func(t *testing.T) {
			_, err := svc.ChangeOwnPassword(ctx, dom.ID, "Brand-new-pass-1")
			if !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("domain change: %v", err)
			}
		})
		t.Run("a change moves the user to a new token generation", func(t *testing.T) {
			before, _ := svc.Get(ctx, local.ID)
			if _, err := svc.ChangeOwnPassword(ctx, local.ID, "carol@example.com"); !fault.Is(err, fault.CodeValidation) {
				t.Fatalf("e-mail as password: %v", err)
			}
			v, err := svc.ChangeOwnPassword(ctx, local.ID, "Brand-new-pass-1")
			if err != nil || v != before.TokenVersion+1 {
				t.Fatalf("version %d (was %d): %v", v, before.TokenVersion, err)
			}
			acc, err := svc.AccountByID(ctx, local.ID)
			if err != nil || acc.TokenVersion != v {
				t.Fatalf("cached account at %d, want %d: %v", acc.TokenVersion, v, err)
			}
		})
		t.Run("preferences", func(t *testing.T) {
			ru, tz := "ru", "Europe/Moscow"
			p, err := svc.SetPreferences(ctx, local.ID, PreferencesPatch{Language: &ru, TimeZone: &tz})
			if err != nil || *p.Language != LanguageName("ru") || *p.TimeZone != tz {
				t.Fatalf("%+v %v", p, err)
			}
			if c, _ := svc.Card(ctx, local.ID); c.Preferences.TimeZone == nil || *c.Preferences.TimeZone != tz {
				t.Fatalf("card %+v", c.Preferences)
			}
			for _, bad := range []string{"Europe/Atlantis", "UTC+3", "Local", "europe/moscow"} {
				if _, err := svc.SetPreferences(ctx, local.ID, PreferencesPatch{TimeZone: &bad}); !fault.Is(err, fault.CodeValidation) {
					t.Fatalf("%q: %v", bad, err)
				}
			}
			clear := ""
			p, err = svc.SetPreferences(ctx, local.ID, PreferencesPatch{TimeZone: &clear})
			if err != nil || p.TimeZone != nil || p.Language == nil {
				t.Fatalf("clear: %+v %v", p, err)
			}
		})
	})
}
