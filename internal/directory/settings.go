// Package directory is the LDAP / Active Directory capability: connection
// and sync settings (config of service ad-sync), the connection check,
// directory search, domain sign-in and the ad-sync job that imports users,
// photos, managers and groups.
package directory

import (
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/fault"
	"coreportal/internal/users"
)

// Mask is the placeholder that keeps the stored bind password.
const Mask = "********"

// Defaults of the settings (SPEC.md "defaults" of the connection settings).
const (
	DefaultLoginAttr        = "sAMAccountName"
	DefaultExternalIDAttr   = "entryUUID"
	DefaultSearchLimit      = 50
	DefaultConnectTimeoutMs = 5000
	DefaultSyncLimit        = 100000
	DefaultGroupSyncLimit   = 10000
	DefaultGroupSyncFilter  = "(|(objectClass=group)(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))"
	// people; AD computer accounts (objectClass person too) are skipped when
	// read, since (!(objectClass=computer)) is undefined on servers without that class
	personFilter = "(objectClass=person)"
	maxLimit     = 1000000
)

// Config is the stored config of service ad-sync: the connection and the
// sync settings together.
type Config struct {
	URL              string `json:"url"`
	BaseDN           string `json:"baseDn"`
	BindDN           string `json:"bindDn"`
	BindPassword     string `json:"bindPassword,omitempty"`
	UserFilter       string `json:"userFilter"`
	SearchFilter     string `json:"searchFilter"`
	LoginAttr        string `json:"loginAttr"`
	SearchLimit      int    `json:"searchLimit"`
	ConnectTimeoutMs int    `json:"connectTimeoutMs"`
	StartTLS         bool   `json:"startTls"`
	TLSCACert        string `json:"tlsCaCert"`
	ExternalIDAttr   string `json:"externalIdAttr"`

	SyncFilter                string            `json:"syncFilter"`
	SyncLimit                 int               `json:"syncLimit"`
	SyncGroups                bool              `json:"syncGroups"`
	GroupSyncFilter           string            `json:"groupSyncFilter"`
	GroupSyncLimit            int               `json:"groupSyncLimit"`
	RemoveMissingGroupMembers *bool             `json:"removeMissingGroupMembers,omitempty"`
	RemoveMissingGroups       bool              `json:"removeMissingGroups"`
	CronDeactivateMissing     bool              `json:"cronDeactivateMissing"`
	SyncUserAttributes        []string          `json:"syncUserAttributes,omitempty"`
	PersonCardVisibleFields   []string          `json:"personCardVisibleFields,omitempty"`
	CustomUserAttributes      []CustomAttribute `json:"customUserAttributes,omitempty"`
	AttributeMap              map[string]string `json:"attributeMap,omitempty"`
}

// CustomAttribute is an extra directory attribute copied to directory_attrs.
type CustomAttribute struct {
	Key      string `json:"key" maxLength:"50" doc:"key in directory_attrs"`
	LDAPAttr string `json:"ldapAttr" maxLength:"100"`
	Label    string `json:"label" maxLength:"200"`
}

// CatalogItem is one built-in attribute of the sync catalog.
type CatalogItem struct {
	Key          string `json:"key"`
	LDAPAttr     string `json:"ldapAttr" doc:"the LDAP attribute read (after attributeMap; login follows loginAttr)"`
	Label        string `json:"label"`
	IsCoreColumn bool   `json:"isCoreColumn"`
	IsBinary     bool   `json:"isBinary"`
}

// Configured says whether every required connection field is set.
func (c Config) Configured() bool {
	return c.URL != "" && c.BaseDN != "" && c.BindDN != "" && c.BindPassword != ""
}

func (c Config) loginAttr() string { return or(c.LoginAttr, DefaultLoginAttr) }

func (c Config) idAttr() string { return or(c.ExternalIDAttr, DefaultExternalIDAttr) }

func (c Config) userFilter() string {
	return or(c.UserFilter, "(&"+personFilter+"("+c.loginAttr()+"={{username}}))")
}

func (c Config) searchFilter() string {
	a := c.loginAttr()
	return or(c.SearchFilter, "(&"+personFilter+"(|("+a+"=*{{query}}*)(displayName=*{{query}}*)(cn=*{{query}}*)(mail=*{{query}}*)))")
}

func (c Config) searchLimit() int { return orInt(c.SearchLimit, DefaultSearchLimit) }

func (c Config) timeoutMs() int { return orInt(c.ConnectTimeoutMs, DefaultConnectTimeoutMs) }

func (c Config) syncFilter() string { return or(c.SyncFilter, personFilter) }

func (c Config) syncLimit() int { return orInt(c.SyncLimit, DefaultSyncLimit) }

func (c Config) groupFilter() string { return or(c.GroupSyncFilter, DefaultGroupSyncFilter) }

func (c Config) groupLimit() int { return orInt(c.GroupSyncLimit, DefaultGroupSyncLimit) }

func (c Config) removeMissingMembers() bool {
	return c.RemoveMissingGroupMembers == nil || *c.RemoveMissingGroupMembers
}

// catalog is the built-in attribute catalog with the effective LDAP attributes.
func (c Config) catalog() []CatalogItem {
	out := make([]CatalogItem, 0, len(users.BuiltinAttributes))
	for _, a := range users.BuiltinAttributes {
		attr := a.LDAPAttr
		if a.Key == "login" {
			attr = c.loginAttr()
		} else if m := c.AttributeMap[a.Key]; m != "" {
			attr = m
		}
		out = append(out, CatalogItem{Key: a.Key, LDAPAttr: attr, Label: a.Label, IsCoreColumn: a.IsCoreColumn, IsBinary: a.Key == "thumbnailPhoto"})
	}
	return out
}

// attr returns the effective LDAP attribute of a catalog key.
func (c Config) attr(key string) string {
	for _, it := range c.catalog() {
		if it.Key == key {
			return it.LDAPAttr
		}
	}
	return ""
}

// syncKeys are the catalog keys synchronised (all when unset).
func (c Config) syncKeys() []string {
	if c.SyncUserAttributes != nil {
		return c.SyncUserAttributes
	}
	keys := make([]string, 0, len(users.BuiltinAttributes))
	for _, a := range users.BuiltinAttributes {
		keys = append(keys, a.Key)
	}
	return keys
}

func (c Config) syncs(key string) bool { return slices.Contains(c.syncKeys(), key) }

func (c Config) cardFields() []string {
	if c.PersonCardVisibleFields != nil {
		return c.PersonCardVisibleFields
	}
	return users.DefaultCardFields
}

func or(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

func orInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

var attrRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]{0,99}|[0-9]+(\.[0-9]+)+)$`)

func checkAttr(field, v string) error {
	if v != "" && !attrRE.MatchString(v) {
		return fault.Validation(field, "%s %q is not an LDAP attribute name", field, v)
	}
	return nil
}

// checkURL accepts ldap://host[:port] and ldaps://host[:port].
func checkURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "ldap" && u.Scheme != "ldaps") || u.Hostname() == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fault.Validation("url", "url must look like ldap://host:389 or ldaps://host:636")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fault.Validation("url", "url has an invalid port %q", p)
		}
	}
	return nil
}

func checkDN(field, v string) error {
	if v == "" {
		return nil
	}
	if _, err := ldap.ParseDN(v); err != nil {
		return fault.Validation(field, "%s is not a valid DN: %v", field, err)
	}
	return nil
}

// checkFilter compiles a filter with its placeholder filled in; the
// placeholder must be present when required.
func checkFilter(field, v, placeholder string) error {
	if v == "" {
		return nil
	}
	if placeholder != "" && !strings.Contains(v, placeholder) {
		return fault.Validation(field, "%s must contain the placeholder %s", field, placeholder)
	}
	f := v
	if placeholder != "" {
		f = strings.ReplaceAll(v, placeholder, "x")
	}
	if _, err := ldap.CompileFilter(f); err != nil {
		return fault.Validation(field, "%s is not a valid LDAP filter: %v", field, err)
	}
	return nil
}

func checkCA(pemText string) error {
	if strings.TrimSpace(pemText) == "" {
		return nil
	}
	rest := []byte(pemText)
	n := 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return fault.Validation("tlsCaCert", "tlsCaCert holds an unreadable certificate: %v", err)
		}
		n++
	}
	if n == 0 {
		return fault.Validation("tlsCaCert", "tlsCaCert must hold one or more PEM certificates (-----BEGIN CERTIFICATE-----)")
	}
	return nil
}

func checkLimit(field string, v, max int) error {
	if v < 0 || v > max {
		return fault.Validation(field, "%s must be between 0 (default) and %d", field, max)
	}
	return nil
}
