package main

import (
	"fmt"
	"net/http"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/licence"
	"coreportal/internal/web"
)

// monitorInfo is what /health and /ready carry besides their checks: the
// version and the licence block (mode, valid, daysRemaining, expiresAt), so
// that monitoring sees a read-only portal coming without a token. Neither
// status code depends on it.
func (a *app) monitorInfo() map[string]any {
	st := a.licence.Current()
	return map[string]any{
		"version": buildVersion(),
		"licence": map[string]any{"mode": st.Mode, "valid": st.Valid, "daysRemaining": st.DaysRemaining, "expiresAt": st.ExpiresAt},
	}
}

// licenceWarning adds `Warning: 299 - "…"` to signed-in callers' writes
// during the last licence.WarnDays days of the trial or the licence key.
func (a *app) licenceWarning(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			if auth.FromContext(r.Context()) != nil {
				if text := licenceWarningText(a.licence.Current()); text != "" {
					w.Header().Add("Warning", fmt.Sprintf("299 - %q", text))
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// licenceWarningText is the warning of a valid licence status that ends
// within licence.WarnDays days; "" otherwise.
func licenceWarningText(st licence.LicenseStatus) string {
	if !st.Valid || st.DaysRemaining > licence.WarnDays {
		return ""
	}
	days := "1 day"
	if st.DaysRemaining != 1 {
		days = fmt.Sprintf("%d days", st.DaysRemaining)
	}
	what := "licence"
	if st.Mode == "trial" {
		what = "trial licence"
	}
	return fmt.Sprintf("%s expires in %s (%s): the portal then becomes read-only; activate a licence key",
		what, days, st.ExpiresAt.UTC().Format(time.RFC3339))
}

// noteUser tells the access log who made the request.
func noteUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := auth.FromContext(r.Context()); p != nil {
			web.NoteUser(r.Context(), p.UserID)
		}
		next.ServeHTTP(w, r)
	})
}
