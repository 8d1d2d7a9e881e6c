package directory

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/fault"
)

// Categories of a failed connection: all an administrator is told of it
// (the log keeps the detail for operators). Only these five can be told
// apart, so the connection check cannot serve to map ports or services.
const (
	catRefused    = "refused"
	catTimeout    = "timeout"
	catTLS        = "TLS"
	catNotLDAP    = "not LDAP"
	catUnresolved = "unknown host"
)

// unavailableText is all an anonymous caller learns of a directory that
// cannot be used (domain sign-in).
const unavailableText = "directory unavailable"

// checkControls refuses control characters (C0 including CR, LF, TAB and
// NUL, DEL and C1) in a value sent to the directory server: bytes that end
// or split a line of a text protocol never reach any server.
func checkControls(field, v string) error {
	for _, r := range v {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return fault.Validation(field, "%s must not contain control characters (CR, LF, TAB, NUL and the like)", field)
		}
	}
	return nil
}

// checkConnectionValues applies checkControls to the values of the
// connection settings sent to the server.
func checkConnectionValues(c Config) error {
	for _, f := range []struct{ field, v string }{{"bindDn", c.BindDN}, {"bindPassword", c.BindPassword}, {"baseDn", c.BaseDN},
		{"userFilter", c.UserFilter}, {"searchFilter", c.SearchFilter}} {
		if err := checkControls(f.field, f.v); err != nil {
			return err
		}
	}
	return nil
}

// checkSyncValues applies checkControls to the filters of the sync settings.
func checkSyncValues(c Config) error {
	for _, f := range []struct{ field, v string }{{"syncFilter", c.SyncFilter}, {"groupSyncFilter", c.GroupSyncFilter}} {
		if err := checkControls(f.field, f.v); err != nil {
			return err
		}
	}
	return nil
}

// HostPatterns restricts the directory servers the portal connects to
// (CORE_DIRECTORY_ALLOWED_HOSTS). Each pattern is a host name, an IP address
// or *.domain (any name below domain), optionally with :port; without a port
// any port matches. Names are compared as written, case-insensitively, and
// are not resolved. No patterns allow every host.
type HostPatterns []string

// allows reports whether the ldap:// or ldaps:// URL raw names an allowed
// host and port (the default port of the scheme when it names none).
func (p HostPatterns) allows(raw string) bool {
	if len(p) == 0 {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host, port := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), u.Port()
	if port == "" {
		port = "389"
		if u.Scheme == "ldaps" {
			port = "636"
		}
	}
	for _, pat := range p {
		ph, pp := splitPattern(pat)
		if pp != "" && pp != port {
			continue
		}
		if suffix, ok := strings.CutPrefix(ph, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
			continue
		}
		if hostEqual(ph, host) {
			return true
		}
	}
	return false
}

// splitPattern splits host[:port] ([v6]:port for IPv6) into lower-cased host and port.
func splitPattern(pat string) (host, port string) {
	pat = strings.ToLower(strings.TrimSpace(pat))
	if h, p, err := net.SplitHostPort(pat); err == nil {
		return strings.TrimSuffix(h, "."), p
	}
	return strings.TrimSuffix(strings.Trim(pat, "[]"), "."), ""
}

// hostEqual compares host names, and IP addresses in their canonical form.
func hostEqual(a, b string) bool {
	ia, ib := net.ParseIP(a), net.ParseIP(b)
	if ia != nil && ib != nil {
		return ia.Equal(ib)
	}
	return a == b
}

// checkHost refuses a URL whose host CORE_DIRECTORY_ALLOWED_HOSTS does not allow.
func (p HostPatterns) checkHost(raw string) error {
	if raw == "" || p.allows(raw) {
		return nil
	}
	return fault.Validation("url", "the directory server of url is not allowed on this installation (CORE_DIRECTORY_ALLOWED_HOSTS)")
}

// ParseHostPatterns reads CORE_DIRECTORY_ALLOWED_HOSTS: comma-separated
// host, host:port, *.domain or *.domain:port patterns ([v6]:port for IPv6).
func ParseHostPatterns(v string) (HostPatterns, error) {
	var out HostPatterns
	for f := range strings.SplitSeq(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		h, p := splitPattern(f)
		name := strings.TrimPrefix(h, "*.")
		if name == "" || strings.ContainsAny(name, "/@*?#: ") && net.ParseIP(name) == nil {
			return nil, errors.New("CORE_DIRECTORY_ALLOWED_HOSTS: " + f + " is not a host, host:port or *.domain pattern")
		}
		if p != "" {
			if n, ok := portNumber(p); !ok || n < 1 || n > 65535 {
				return nil, errors.New("CORE_DIRECTORY_ALLOWED_HOSTS: " + f + " has an invalid port")
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func portNumber(s string) (int, bool) {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' || n > 65535 {
			return 0, false
		}
		n = n*10 + int(r-'0')
	}
	return n, s != ""
}

// describe turns a connection error into an UNAVAILABLE fault that names
// only its category; the log keeps the server and the error for operators.
// connected says whether the TCP (and TLS) connection was up: an error
// after it that is not an LDAP answer means the server does not speak LDAP.
func describe(ctx context.Context, c Config, err error, connected bool) error {
	cat := category(err, connected)
	slog.WarnContext(ctx, "directory: cannot reach the directory server", "url", c.URL, "category", cat, "err", err.Error())
	msg := "cannot reach the directory server (" + cat + ")"
	if cat == catTLS && isCertificateError(err) {
		msg += ": its certificate is not trusted (set tlsCaCert to the CA bundle that signed it; certificates are never skipped)"
	}
	return fault.Unavailable("%s", msg).With("category", cat)
}

func category(err error, connected bool) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var recErr tls.RecordHeaderError
	switch {
	case isCertificateError(err) || errors.As(err, &recErr) || strings.Contains(err.Error(), "tls: "):
		return catTLS
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return catTimeout
	case errors.As(err, &dnsErr):
		return catUnresolved
	case !connected && errors.As(err, &opErr):
		return catRefused
	case !connected:
		return catRefused
	}
	return catNotLDAP
}

func isCertificateError(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalid) || errors.As(err, &certErr) ||
		strings.Contains(err.Error(), "x509: ") || strings.Contains(err.Error(), "failed to verify certificate")
}

// answerError is describe for errors of requests on a bound connection: an
// LDAP result code is the server's answer (administrators see it), anything
// else is a lost or garbled connection.
func answerError(ctx context.Context, c Config, err error) error {
	var le *ldap.Error
	if errors.As(err, &le) && le.ResultCode != ldap.ErrorNetwork && le.ResultCode < ldap.ErrorNetwork {
		return fault.Unavailable("the directory server answered with an error: %s", ldap.LDAPResultCodeMap[le.ResultCode])
	}
	return describe(ctx, c, err, true)
}

// forAnonymous reduces an error of domain sign-in that is not about the
// credentials to "directory unavailable" (the log has the detail).
func forAnonymous(ctx context.Context, err error) error {
	if fault.Is(err, fault.CodeUnavailable) || fault.Is(err, fault.CodeValidation) {
		slog.WarnContext(ctx, "domain sign-in: the directory cannot be used", "err", err.Error())
		return fault.Unavailable(unavailableText)
	}
	return err
}
