package directory

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"coreportal/internal/fault"
)

func TestCheckControls(t *testing.T) {
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"cn=admin,dc=example,dc=org", true},
		{"pässwörd €", true},
		{"pw\r\nSET x 1", false},
		{"pw\n", false},
		{"pw\x00", false},
		{"pw\t", false},
		{"pw\x7f", false},
		{"pw\u0085", false},
		{"pw\u009b", false},
	} {
		err := checkControls("bindPassword", c.v)
		if (err == nil) != c.ok {
			t.Errorf("%q: %v", c.v, err)
		}
		if err != nil {
			fe, _ := fault.As(err)
			if fe.Code != fault.CodeValidation || fe.Details["field"] != "bindPassword" {
				t.Errorf("%q: %v %v", c.v, fe.Code, fe.Details)
			}
		}
	}
	if err := checkConnectionValues(Config{BindDN: "cn=a", UserFilter: "(uid={{username}})\n"}); !fault.Is(err, fault.CodeValidation) || !strings.Contains(err.Error(), "userFilter") {
		t.Fatalf("filter with LF: %v", err)
	}
	if err := checkSyncValues(Config{GroupSyncFilter: "(cn=*)\r"}); !fault.Is(err, fault.CodeValidation) || !strings.Contains(err.Error(), "groupSyncFilter") {
		t.Fatalf("group filter with CR: %v", err)
	}
}

func TestHostPatterns(t *testing.T) {
	p, err := ParseHostPatterns(" dc1.corp.example , *.ad.example:636, 10.0.0.5:389, [::1]:3389 ,")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{"ldap://dc1.corp.example", true},
		{"ldaps://DC1.corp.example:3269", true},
		{"ldap://dc2.corp.example", false},
		{"ldaps://x.ad.example", true},
		{"ldaps://x.y.ad.example:636", true},
		{"ldap://x.ad.example", false}, // 389
		{"ldaps://ad.example", false},
		{"ldap://evilad.example:636", false},
		{"ldap://10.0.0.5", true},
		{"ldap://10.0.0.5:6379", false},
		{"ldap://[::1]:3389", true},
		{"ldap://127.0.0.1:6379", false},
		{"ldap://dc1.corp.example.evil:389", false},
	} {
		if got := p.allows(c.url); got != c.ok {
			t.Errorf("%s: allowed %v, want %v", c.url, got, c.ok)
		}
	}
	if !HostPatterns(nil).allows("ldap://anything:1") {
		t.Fatal("no patterns must allow any host")
	}
	if err := p.checkHost("ldap://127.0.0.1:6379"); !fault.Is(err, fault.CodeValidation) {
		t.Fatalf("checkHost: %v", err)
	}
	for _, bad := range []string{"ldap://dc1", "dc1:0", "dc1:99999", "dc1:x", "a/b", "*."} {
		if _, err := ParseHostPatterns(bad); err == nil {
			t.Errorf("pattern %q accepted", bad)
		}
	}
}

func TestConnectionCategory(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, c := range []struct {
		name      string
		err       error
		connected bool
		want      string
	}{
		{"refused", refused, false, catRefused},
		{"deadline", context.DeadlineExceeded, false, catTimeout},
		{"timed out", errors.New("ldap: connection timed out"), true, catTimeout},
		{"dns", &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}, false, catUnresolved},
		{"tls", errors.New("tls: first record does not look like a TLS handshake"), false, catTLS},
		{"certificate", errors.New("x509: certificate signed by unknown authority"), true, catTLS},
		{"garbage", errors.New("unexpected EOF"), true, catNotLDAP},
	} {
		if got := category(c.err, c.connected); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	err := describe(context.Background(), Config{URL: "ldap://10.1.2.3:4444"}, refused, false)
	if !fault.Is(err, fault.CodeUnavailable) || strings.Contains(err.Error(), "10.1.2.3") || strings.Contains(err.Error(), "4444") {
		t.Fatalf("describe names the server: %v", err)
	}
	if got := forAnonymous(context.Background(), err); got.Error() != "UNAVAILABLE: "+unavailableText {
		t.Fatalf("anonymous error %v", got)
	}
}
