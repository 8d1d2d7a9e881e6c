package users

import (
	"context"
	"strings"
	"time"
	_ "time/tzdata" // time zone names are checked the same on hosts without zoneinfo

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// Languages are the console's interface languages.
var Languages = []string{"ru", "en"}

// CheckOwnPasswordChange tells whether user id may set a password of its
// own, and whether newPassword passes the password policy; it is checked
// before the current password, so that a rejected new password costs no
// attempt of the sign-in throttle.
func (s *Service) CheckOwnPasswordChange(ctx context.Context, id, newPassword string) error {
	u, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if u.IsSystem || u.AuthSource != "local" {
		return fault.Validation("", "the password of a domain account is managed by the directory; change it there")
	}
	return auth.CheckPasswordPolicy("newPassword", newPassword, u.Login, u.Email)
}

// ChangeOwnPassword stores the password a local user chose (the current
// one already verified) and moves the user to a new token generation, which
// it returns: every session of the user issued before ends.
func (s *Service) ChangeOwnPassword(ctx context.Context, id, newPassword string) (int, error) {
	if err := s.CheckOwnPasswordChange(ctx, id, newPassword); err != nil {
		return 0, err
	}
	hash, err := auth.HashPassword(newPassword)
	if err != nil {
		return 0, err
	}
	version, err := s.st.setOwnPassword(ctx, id, hash, s.now().UTC())
	if err != nil {
		return 0, err
	}
	s.changed(ctx, id)
	audit.Record(ctx, audit.Entry{Action: audit.UserPassword, ResourceType: "user", ResourceID: id, Details: map[string]any{"self": true}})
	return version, nil
}

// Preferences returns the user's own preferences.
func (s *Service) Preferences(ctx context.Context, id string) (Preferences, error) {
	u, err := s.cachedUser(ctx, id)
	if err != nil {
		return Preferences{}, err
	}
	return u.preferences(), nil
}

// PreferencesPatch changes some preferences: a nil field stays, an empty
// string clears it.
type PreferencesPatch struct {
	Language *string
	TimeZone *string
}

// SetPreferences applies a patch to the user's own preferences.
func (s *Service) SetPreferences(ctx context.Context, id string, p PreferencesPatch) (Preferences, error) {
	u, err := s.Get(ctx, id)
	if err != nil {
		return Preferences{}, err
	}
	if p.Language != nil {
		if err := checkLanguage(*p.Language); err != nil {
			return Preferences{}, err
		}
		u.Language = *p.Language
	}
	if p.TimeZone != nil {
		tz, err := checkTimeZone(*p.TimeZone)
		if err != nil {
			return Preferences{}, err
		}
		u.TimeZone = tz
	}
	if err := s.st.setPreferences(ctx, id, u.Language, u.TimeZone, s.now().UTC()); err != nil {
		return Preferences{}, err
	}
	s.changed(ctx, id)
	return u.preferences(), nil
}

func checkLanguage(lang string) error {
	for _, l := range Languages {
		if lang == l || lang == "" {
			return nil
		}
	}
	return fault.Validation("language", "language must be one of %s, or null", strings.Join(Languages, ", "))
}

// checkTimeZone accepts an IANA time zone name (as the tz database spells
// it, e.g. Europe/Moscow or UTC) and answers it as stored.
func checkTimeZone(name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if len(name) > 64 || name == "Local" || strings.ContainsAny(name, " \\") {
		return "", fault.Validation("timeZone", "timeZone %q is not an IANA time zone name such as Europe/Moscow", name)
	}
	if _, err := time.LoadLocation(name); err != nil {
		return "", fault.Validation("timeZone", "timeZone %q is not an IANA time zone name such as Europe/Moscow", name)
	}
	return name, nil
}
