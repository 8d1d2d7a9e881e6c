package directory

import (
	"strings"
	"testing"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/fault"
)

func TestSIDString(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
		ok   bool
	}{
		{[]byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}, "S-1-5-18", true},
		{[]byte{1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 0x15, 0xcd, 0x5b, 0x07, 0x5e, 0x2a, 0x9f, 0x3b, 0x59, 0xa0, 0xd8, 0x3c, 0xe9, 0x03, 0, 0},
			"S-1-5-21-123456789-1000286814-1020829785-1001", true},
		{[]byte{1, 2, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}, "", false}, // count says 2, one given
		{[]byte("3f2504e0-4f89"), "", false},
		{nil, "", false},
	} {
		got, ok := SIDString(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SIDString(%v) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNormDN(t *testing.T) {
	for in, want := range map[string]string{
		"CN=John Smith,OU=Sales,DC=Corp,DC=local":   "cn=john smith,ou=sales,dc=corp,dc=local",
		"cn=John Smith, ou=Sales ,dc=corp,dc=local": "cn=john smith,ou=sales,dc=corp,dc=local",
		"uid=a+cn=B,dc=x":                           "uid=a+cn=b,dc=x",
		`cn=Smith\, John,dc=x`:                      "cn=smith, john,dc=x",
		"not a dn":                                  "not a dn",
	} {
		if got := normDN(in); got != want {
			t.Errorf("normDN(%q) = %q, want %q", in, got, want)
		}
	}
}

// Filter placeholders are filled escaped per RFC 4515: an injected value
// matches literally and the filter still compiles.
func TestFilterWithEscapes(t *testing.T) {
	for _, v := range []string{"*)(uid=*", "*", "\x00", `\00`, "a)(|(objectClass=*", "(", "ü*"} {
		f := filterWith("(&(objectClass=person)(uid={{username}}))", "{{username}}", v)
		if strings.Count(f, "(") != 3 || strings.Contains(f, "*") {
			t.Errorf("%q -> %q", v, f)
		}
		if _, err := ldap.CompileFilter(f); err != nil {
			t.Errorf("%q -> %q does not compile: %v", v, f, err)
		}
	}
}

func TestConnectionValidation(t *testing.T) {
	pw := "secret"
	base := ConnectionInput{URL: "ldap://dc1.corp.local:389", BaseDN: "DC=corp,DC=local", BindDN: "CN=svc,DC=corp,DC=local", BindPassword: &pw}
	for _, tc := range []struct {
		name  string
		edit  func(*ConnectionInput)
		field string
	}{
		{"ok", func(*ConnectionInput) {}, ""},
		{"ldaps", func(in *ConnectionInput) { in.URL = "ldaps://dc1.corp.local" }, ""},
		{"scheme", func(in *ConnectionInput) { in.URL = "https://dc1" }, "url"},
		{"port", func(in *ConnectionInput) { in.URL = "ldap://dc1:99999" }, "url"},
		{"credentials in url", func(in *ConnectionInput) { in.URL = "ldap://u:p@dc1" }, "url"},
		{"base", func(in *ConnectionInput) { in.BaseDN = "corp.local" }, "baseDn"},
		{"user filter", func(in *ConnectionInput) { in.UserFilter = "(sAMAccountName=x)" }, "userFilter"},
		{"user filter syntax", func(in *ConnectionInput) { in.UserFilter = "(&(sAMAccountName={{username}})" }, "userFilter"},
		{"search filter", func(in *ConnectionInput) { in.SearchFilter = "(cn={{username}})" }, "searchFilter"},
		{"login attr", func(in *ConnectionInput) { in.LoginAttr = "sam account" }, "loginAttr"},
		{"oid attr", func(in *ConnectionInput) { in.LoginAttr = "0.9.2342.19200300.100.1.1" }, ""},
		{"limit", func(in *ConnectionInput) { in.SearchLimit = 1001 }, "searchLimit"},
		{"ca", func(in *ConnectionInput) {
			in.TLSCACert = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"
		}, "tlsCaCert"},
		{"starttls on ldaps", func(in *ConnectionInput) { in.URL, in.StartTLS = "ldaps://dc1", true }, "startTls"},
	} {
		in := base
		tc.edit(&in)
		_, err := in.applyConnection(Config{})
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		fe, ok := fault.As(err)
		if !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != tc.field {
			t.Errorf("%s: %v, want a validation error on %s", tc.name, err, tc.field)
		}
	}
}

// The stored password is kept by omission or the mask, but never carried to
// another server or account.
func TestBindPasswordKeeping(t *testing.T) {
	old := Config{URL: "ldap://dc1", BaseDN: "dc=x", BindDN: "cn=svc,dc=x", BindPassword: "stored"}
	mask, empty, next := Mask, "", "new"
	for _, tc := range []struct {
		name   string
		in     ConnectionInput
		want   string
		refuse bool
	}{
		{"omitted", ConnectionInput{URL: "ldap://dc1", BaseDN: "dc=x", BindDN: "cn=svc,dc=x"}, "stored", false},
		{"mask", ConnectionInput{URL: "ldap://dc1", BaseDN: "dc=x", BindDN: "cn=svc,dc=x", BindPassword: &mask}, "stored", false},
		{"new", ConnectionInput{URL: "ldap://dc2", BaseDN: "dc=x", BindDN: "cn=svc,dc=x", BindPassword: &next}, "new", false},
		{"cleared", ConnectionInput{URL: "ldap://dc1", BaseDN: "dc=x", BindDN: "cn=svc,dc=x", BindPassword: &empty}, "", false},
		{"other server", ConnectionInput{URL: "ldap://evil", BaseDN: "dc=x", BindDN: "cn=svc,dc=x"}, "", true},
		{"other account", ConnectionInput{URL: "ldap://dc1", BaseDN: "dc=x", BindDN: "cn=admin,dc=x", BindPassword: &mask}, "", true},
	} {
		c, err := tc.in.applyConnection(old)
		if tc.refuse != (err != nil) || !tc.refuse && c.BindPassword != tc.want {
			t.Errorf("%s: password %q, err %v", tc.name, c.BindPassword, err)
		}
	}
}

func TestSyncDefaultsAndMapping(t *testing.T) {
	c := Config{LoginAttr: "uid", AttributeMap: map[string]string{"thumbnailPhoto": "jpegPhoto"}}
	if c.attr("login") != "uid" || c.attr("thumbnailPhoto") != "jpegPhoto" || c.attr("email") != "mail" {
		t.Fatalf("catalog %+v", c.catalog())
	}
	if len(c.syncKeys()) != 11 || strings.Join(c.cardFields(), ",") != "department,title,telephoneNumber,mobile,email" || !c.removeMissingMembers() {
		t.Fatal("defaults")
	}
	if !strings.Contains(c.userFilter(), "(uid={{username}})") || !strings.Contains(c.searchFilter(), "(uid=*{{query}}*)") {
		t.Fatalf("filters %s %s", c.userFilter(), c.searchFilter())
	}
	e := &ldap.Entry{DN: "UID=Ann,OU=People,DC=x", Attributes: []*ldap.EntryAttribute{
		{Name: "uid", Values: []string{"ann"}}, {Name: "entryUUID", Values: []string{"6b1f8a9e-1111-2222-3333-444455556666"}},
		{Name: "displayName", Values: []string{"Ann A"}}, {Name: "title", Values: []string{"Boss"}},
		{Name: "manager", Values: []string{"uid=Bob,ou=People,dc=x"}}, {Name: "userAccountControl", Values: []string{"514"}},
		{Name: "jpegPhoto", Values: []string{"\xff\xd8\xff"}, ByteValues: [][]byte{{0xff, 0xd8, 0xff}}}}}
	p := c.toPerson(e)
	if p.Login != "ann" || p.ExternalID != "6b1f8a9e-1111-2222-3333-444455556666" || p.DN != "uid=ann,ou=people,dc=x" ||
		p.ManagerDN != "uid=bob,ou=people,dc=x" || p.Attrs["title"] != "Boss" || !p.Disabled || !p.hasPhoto || len(p.photo) != 3 {
		t.Fatalf("person %+v", p)
	}
	c.SyncUserAttributes = []string{"title"}
	if p := c.toPerson(e); p.hasPhoto || p.ManagerDN != "" || p.Attrs["title"] != "Boss" {
		t.Fatalf("only title synchronised: %+v", p)
	}
}

func TestLegacyInput(t *testing.T) {
	env := map[string]string{"LDAP_URL": "ldap://dc1", "LDAP_USER_FILTER": "(sAMAccountName=%s)", "LDAP_SEARCH_LIMIT": "20", "LDAP_BIND_PASSWORD": "pw"}
	in, found, err := legacyInput(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || !found || in.URL != "ldap://dc1" || in.UserFilter != "(sAMAccountName={{username}})" || in.SearchLimit != 20 || *in.BindPassword != "pw" {
		t.Fatalf("%+v %v %v", in, found, err)
	}
	env["LDAP_SEARCH_LIMIT"] = "many"
	if _, _, err := legacyInput(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err == nil {
		t.Fatal("a bad number was accepted")
	}
	if _, found, _ := legacyInput(func(string) (string, bool) { return "", false }); found {
		t.Fatal("found without variables")
	}
}

func TestExpandNested(t *testing.T) {
	groups := map[string]*directoryGroup{
		"cn=a": {members: []string{"uid=1", "cn=b"}},
		"cn=b": {members: []string{"uid=2", "cn=a", "cn=unknown"}}, // a cycle
	}
	ids := expand("cn=a", groups, map[string]string{"uid=1": "u1", "uid=2": "u2"})
	if len(ids) != 2 {
		t.Fatalf("expand %v", ids)
	}
}
