package directory

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// legacyMarker is the settings key recording that the LDAP_* move happened.
const legacyMarker = "directory.legacy_env_imported"

// LegacyVariables are the environment variables of earlier releases that
// ImportLegacy moves into the stored settings.
var LegacyVariables = []string{"LDAP_URL", "LDAP_BASE_DN", "LDAP_BIND_DN", "LDAP_BIND_PASSWORD", "LDAP_USER_FILTER",
	"LDAP_SEARCH_FILTER", "LDAP_LOGIN_ATTR", "LDAP_SEARCH_LIMIT", "LDAP_CONNECT_TIMEOUT_MS", "LDAP_START_TLS", "LDAP_CA_CERT_FILE", "LDAP_ID_ATTR"}

// ImportLegacy moves the legacy LDAP_* values (env) into the stored
// connection settings once: on the first start that sees the marker unset,
// and only when no connection is stored yet. Later starts ignore the
// variables. Invalid values are logged and nothing is imported.
func (s *Service) ImportLegacy(ctx context.Context, env func(string) (string, bool)) (bool, error) {
	st := s.settings
	if _, done, err := st.Get(ctx, legacyMarker); err != nil || done {
		return false, err
	}
	in, found, err := legacyInput(env)
	imported := false
	switch {
	case err != nil:
		slog.WarnContext(ctx, "legacy LDAP_* variables not imported", "err", err)
	case found:
		cur, err := s.config(ctx)
		if err != nil {
			return false, err
		}
		if cur.URL != "" {
			slog.InfoContext(ctx, "legacy LDAP_* variables ignored: directory settings are already stored")
			break
		}
		if _, err := s.PutConnection(ctx, in); err != nil {
			slog.WarnContext(ctx, "legacy LDAP_* variables not imported", "err", err)
			break
		}
		imported = true
		slog.InfoContext(ctx, "legacy LDAP_* variables moved into the directory settings; they are no longer read")
	}
	return imported, st.Set(ctx, legacyMarker, "1")
}

func legacyInput(env func(string) (string, bool)) (ConnectionInput, bool, error) {
	get := func(k string) string { v, _ := env(k); return strings.TrimSpace(v) }
	found := false
	for _, k := range LegacyVariables {
		if get(k) != "" {
			found = true
		}
	}
	in := ConnectionInput{URL: get("LDAP_URL"), BaseDN: get("LDAP_BASE_DN"), BindDN: get("LDAP_BIND_DN"),
		UserFilter: get("LDAP_USER_FILTER"), SearchFilter: get("LDAP_SEARCH_FILTER"), LoginAttr: get("LDAP_LOGIN_ATTR"), ExternalIDAttr: get("LDAP_ID_ATTR")}
	// older releases wrote the placeholder printf-style
	in.UserFilter = strings.ReplaceAll(in.UserFilter, "%s", "{{username}}")
	in.SearchFilter = strings.ReplaceAll(in.SearchFilter, "%s", "{{query}}")
	if pw, ok := env("LDAP_BIND_PASSWORD"); ok && pw != "" {
		in.BindPassword = &pw
	}
	for k, dst := range map[string]*int{"LDAP_SEARCH_LIMIT": &in.SearchLimit, "LDAP_CONNECT_TIMEOUT_MS": &in.ConnectTimeoutMs} {
		if v := get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return in, found, fmt.Errorf("%s=%q is not a number", k, v)
			}
			*dst = n
		}
	}
	if v := get("LDAP_START_TLS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return in, found, fmt.Errorf("LDAP_START_TLS=%q is not true or false", v)
		}
		in.StartTLS = b
	}
	if f := get("LDAP_CA_CERT_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return in, found, fmt.Errorf("LDAP_CA_CERT_FILE: %w", err)
		}
		in.TLSCACert = string(b)
	}
	return in, found, nil
}
