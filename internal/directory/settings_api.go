package directory

import (
	"regexp"
	"slices"
	"strings"

	"coreportal/internal/fault"
	"coreportal/internal/users"
)

// ConnectionSettings is GET /admin/settings/ldap: never the password.
type ConnectionSettings struct {
	URL              string             `json:"url"`
	BaseDN           string             `json:"baseDn"`
	BindDN           string             `json:"bindDn"`
	HasPassword      bool               `json:"hasPassword"`
	UserFilter       string             `json:"userFilter" doc:"empty = defaults.userFilter"`
	SearchFilter     string             `json:"searchFilter" doc:"empty = defaults.searchFilter"`
	LoginAttr        string             `json:"loginAttr" doc:"empty = defaults.loginAttr"`
	SearchLimit      int                `json:"searchLimit" doc:"0 = defaults.searchLimit"`
	ConnectTimeoutMs int                `json:"connectTimeoutMs" doc:"0 = defaults.connectTimeoutMs"`
	StartTLS         bool               `json:"startTls"`
	TLSCACert        string             `json:"tlsCaCert"`
	ExternalIDAttr   string             `json:"externalIdAttr" doc:"empty = defaults.externalIdAttr"`
	Configured       bool               `json:"configured" doc:"url, baseDn, bindDn and the password are set"`
	Defaults         ConnectionDefaults `json:"defaults"`
}

// ConnectionDefaults are the values used for empty fields.
type ConnectionDefaults struct {
	UserFilter       string `json:"userFilter"`
	SearchFilter     string `json:"searchFilter"`
	LoginAttr        string `json:"loginAttr"`
	SearchLimit      int    `json:"searchLimit"`
	ConnectTimeoutMs int    `json:"connectTimeoutMs"`
	ExternalIDAttr   string `json:"externalIdAttr"`
}

// ConnectionInput is the body of PUT /admin/settings/ldap (replaces the connection settings).
type ConnectionInput struct {
	URL              string  `json:"url" maxLength:"500" doc:"ldap://host[:389] or ldaps://host[:636]; empty = not configured"`
	BaseDN           string  `json:"baseDn,omitempty" maxLength:"1000"`
	BindDN           string  `json:"bindDn,omitempty" maxLength:"1000"`
	BindPassword     *string `json:"bindPassword,omitempty" maxLength:"1024" doc:"omit or send ******** to keep the stored password (only while url and bindDn stay the same: otherwise 400, re-enter it); empty clears it. Never returned."`
	UserFilter       string  `json:"userFilter,omitempty" maxLength:"2000" doc:"sign-in filter with the placeholder {{username}} (escaped per RFC 4515)"`
	SearchFilter     string  `json:"searchFilter,omitempty" maxLength:"2000" doc:"directory search filter with the placeholder {{query}} (escaped per RFC 4515)"`
	LoginAttr        string  `json:"loginAttr,omitempty" maxLength:"100" doc:"login attribute: sAMAccountName (AD, default), uid (OpenLDAP)"`
	SearchLimit      int     `json:"searchLimit,omitempty" minimum:"0" maximum:"1000"`
	ConnectTimeoutMs int     `json:"connectTimeoutMs,omitempty" minimum:"0" maximum:"60000"`
	StartTLS         bool    `json:"startTls,omitempty" doc:"upgrade an ldap:// connection with StartTLS (not with ldaps://)"`
	TLSCACert        string  `json:"tlsCaCert,omitempty" maxLength:"65536" doc:"PEM CA bundle that signed the server certificate; empty = the system's trusted CAs. Certificates are always verified."`
	ExternalIDAttr   string  `json:"externalIdAttr,omitempty" maxLength:"100" doc:"id attribute used when an entry has no objectSid (OpenLDAP: entryUUID, the default)"`
}

func (c Config) connectionView() ConnectionSettings {
	d := Config{LoginAttr: c.LoginAttr}
	return ConnectionSettings{URL: c.URL, BaseDN: c.BaseDN, BindDN: c.BindDN, HasPassword: c.BindPassword != "",
		UserFilter: c.UserFilter, SearchFilter: c.SearchFilter, LoginAttr: c.LoginAttr, SearchLimit: c.SearchLimit,
		ConnectTimeoutMs: c.ConnectTimeoutMs, StartTLS: c.StartTLS, TLSCACert: c.TLSCACert, ExternalIDAttr: c.ExternalIDAttr,
		Configured: c.Configured(),
		Defaults: ConnectionDefaults{UserFilter: d.userFilter(), SearchFilter: d.searchFilter(), LoginAttr: DefaultLoginAttr,
			SearchLimit: DefaultSearchLimit, ConnectTimeoutMs: DefaultConnectTimeoutMs, ExternalIDAttr: DefaultExternalIDAttr}}
}

// applyConnection validates in and returns old with the connection replaced.
func (in ConnectionInput) applyConnection(old Config) (Config, error) {
	c := old
	c.URL, c.BaseDN, c.BindDN = strings.TrimSpace(in.URL), strings.TrimSpace(in.BaseDN), strings.TrimSpace(in.BindDN)
	c.UserFilter, c.SearchFilter = strings.TrimSpace(in.UserFilter), strings.TrimSpace(in.SearchFilter)
	c.LoginAttr, c.ExternalIDAttr = strings.TrimSpace(in.LoginAttr), strings.TrimSpace(in.ExternalIDAttr)
	c.SearchLimit, c.ConnectTimeoutMs, c.StartTLS, c.TLSCACert = in.SearchLimit, in.ConnectTimeoutMs, in.StartTLS, strings.TrimSpace(in.TLSCACert)
	keep := in.BindPassword == nil || *in.BindPassword == Mask
	if !keep {
		c.BindPassword = *in.BindPassword
	}
	if err := checkURL(c.URL); err != nil {
		return c, err
	}
	for _, e := range []error{checkDN("baseDn", c.BaseDN), checkDN("bindDn", c.BindDN),
		checkFilter("userFilter", c.UserFilter, "{{username}}"), checkFilter("searchFilter", c.SearchFilter, "{{query}}"),
		checkAttr("loginAttr", c.LoginAttr), checkAttr("externalIdAttr", c.ExternalIDAttr),
		checkLimit("searchLimit", c.SearchLimit, 1000), checkLimit("connectTimeoutMs", c.ConnectTimeoutMs, 60000), checkCA(c.TLSCACert)} {
		if e != nil {
			return c, e
		}
	}
	if c.StartTLS && strings.HasPrefix(c.URL, "ldaps:") {
		return c, fault.Validation("startTls", "startTls is for ldap:// URLs; ldaps:// is TLS from the start")
	}
	if keep && old.BindPassword != "" && (!strings.EqualFold(old.URL, c.URL) || !strings.EqualFold(old.BindDN, c.BindDN)) {
		// the stored secret must never be sent to a server or account it was not entered for
		return c, fault.Validation("bindPassword", "re-enter bindPassword when url or bindDn changes (or send an empty one to clear it)")
	}
	return c, nil
}

// SyncSettings is GET /admin/settings/ldap-sync.
type SyncSettings struct {
	SyncFilter                     string            `json:"syncFilter" doc:"stored override; empty = the default"`
	SyncLimit                      int               `json:"syncLimit" doc:"stored override; 0 = the default"`
	EffectiveSyncFilter            string            `json:"effectiveSyncFilter"`
	EffectiveSyncLimit             int               `json:"effectiveSyncLimit"`
	SyncGroups                     bool              `json:"syncGroups"`
	GroupSyncFilter                string            `json:"groupSyncFilter"`
	GroupSyncLimit                 int               `json:"groupSyncLimit"`
	EffectiveGroupSyncFilter       string            `json:"effectiveGroupSyncFilter"`
	EffectiveGroupSyncLimit        int               `json:"effectiveGroupSyncLimit"`
	RemoveMissingGroupMembers      bool              `json:"removeMissingGroupMembers"`
	RemoveMissingGroups            bool              `json:"removeMissingGroups"`
	CronDeactivateMissing          bool              `json:"cronDeactivateMissing"`
	Catalog                        []CatalogItem     `json:"catalog"`
	SyncUserAttributes             []string          `json:"syncUserAttributes" doc:"effective: all catalog keys while unset"`
	PersonCardVisibleFields        []string          `json:"personCardVisibleFields" doc:"effective, in display order"`
	DefaultPersonCardVisibleFields []string          `json:"defaultPersonCardVisibleFields"`
	CustomUserAttributes           []CustomAttribute `json:"customUserAttributes"`
	AttributeMap                   map[string]string `json:"attributeMap" doc:"catalog key -> LDAP attribute overrides"`
}

// SyncInput is the body of PUT /admin/settings/ldap-sync (replaces the sync settings).
type SyncInput struct {
	SyncFilter                string            `json:"syncFilter,omitempty" maxLength:"2000" doc:"users filter; empty resets to the default"`
	SyncLimit                 int               `json:"syncLimit,omitempty" minimum:"0" maximum:"1000000" doc:"users per pass; 0 = default"`
	SyncGroups                bool              `json:"syncGroups,omitempty"`
	GroupSyncFilter           string            `json:"groupSyncFilter,omitempty" maxLength:"2000"`
	GroupSyncLimit            int               `json:"groupSyncLimit,omitempty" minimum:"0" maximum:"1000000"`
	RemoveMissingGroupMembers *bool             `json:"removeMissingGroupMembers,omitempty" doc:"default true"`
	RemoveMissingGroups       bool              `json:"removeMissingGroups,omitempty"`
	CronDeactivateMissing     bool              `json:"cronDeactivateMissing,omitempty"`
	SyncUserAttributes        []string          `json:"syncUserAttributes,omitempty" maxItems:"100" doc:"catalog keys; omit (or null) for all"`
	PersonCardVisibleFields   []string          `json:"personCardVisibleFields,omitempty" maxItems:"100" doc:"catalog or custom keys, order kept; omit for the default"`
	CustomUserAttributes      []CustomAttribute `json:"customUserAttributes,omitempty" maxItems:"50"`
	AttributeMap              map[string]string `json:"attributeMap,omitempty" doc:"catalog key -> LDAP attribute, e.g. {\"thumbnailPhoto\": \"jpegPhoto\", \"department\": \"departmentNumber\"} for OpenLDAP"`
}

func (c Config) syncView() SyncSettings {
	custom := c.CustomUserAttributes
	if custom == nil {
		custom = []CustomAttribute{}
	}
	am := c.AttributeMap
	if am == nil {
		am = map[string]string{}
	}
	return SyncSettings{SyncFilter: c.SyncFilter, SyncLimit: c.SyncLimit, EffectiveSyncFilter: c.syncFilter(), EffectiveSyncLimit: c.syncLimit(),
		SyncGroups: c.SyncGroups, GroupSyncFilter: c.GroupSyncFilter, GroupSyncLimit: c.GroupSyncLimit,
		EffectiveGroupSyncFilter: c.groupFilter(), EffectiveGroupSyncLimit: c.groupLimit(),
		RemoveMissingGroupMembers: c.removeMissingMembers(), RemoveMissingGroups: c.RemoveMissingGroups, CronDeactivateMissing: c.CronDeactivateMissing,
		Catalog: c.catalog(), SyncUserAttributes: c.syncKeys(), PersonCardVisibleFields: c.cardFields(),
		DefaultPersonCardVisibleFields: users.DefaultCardFields, CustomUserAttributes: custom, AttributeMap: am}
}

var keyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,49}$`)

func isBuiltin(key string) bool {
	for _, a := range users.BuiltinAttributes {
		if a.Key == key {
			return true
		}
	}
	return false
}

// applySync validates in and returns old with the sync settings replaced.
func (in SyncInput) applySync(old Config) (Config, error) {
	c := old
	c.SyncFilter, c.SyncLimit, c.SyncGroups = strings.TrimSpace(in.SyncFilter), in.SyncLimit, in.SyncGroups
	c.GroupSyncFilter, c.GroupSyncLimit = strings.TrimSpace(in.GroupSyncFilter), in.GroupSyncLimit
	c.RemoveMissingGroupMembers, c.RemoveMissingGroups, c.CronDeactivateMissing = in.RemoveMissingGroupMembers, in.RemoveMissingGroups, in.CronDeactivateMissing
	c.SyncUserAttributes, c.PersonCardVisibleFields, c.CustomUserAttributes, c.AttributeMap = nil, nil, nil, nil
	for _, e := range []error{checkFilter("syncFilter", c.SyncFilter, ""), checkFilter("groupSyncFilter", c.GroupSyncFilter, ""),
		checkLimit("syncLimit", c.SyncLimit, maxLimit), checkLimit("groupSyncLimit", c.GroupSyncLimit, maxLimit)} {
		if e != nil {
			return c, e
		}
	}
	known := map[string]bool{}
	for _, a := range users.BuiltinAttributes {
		known[a.Key] = true
	}
	for i, ca := range in.CustomUserAttributes {
		ca.Key, ca.LDAPAttr, ca.Label = strings.TrimSpace(ca.Key), strings.TrimSpace(ca.LDAPAttr), strings.TrimSpace(ca.Label)
		field := "customUserAttributes"
		switch {
		case !keyRE.MatchString(ca.Key):
			return c, fault.Validation(field, "customUserAttributes[%d].key %q must be letters, digits and _ (starting with a letter)", i, ca.Key)
		case known[ca.Key]:
			return c, fault.Validation(field, "customUserAttributes[%d].key %q is already used", i, ca.Key)
		case ca.LDAPAttr == "":
			return c, fault.Validation(field, "customUserAttributes[%d].ldapAttr is required", i)
		}
		if err := checkAttr(field, ca.LDAPAttr); err != nil {
			return c, err
		}
		if ca.Label == "" {
			ca.Label = ca.Key
		}
		known[ca.Key] = true
		c.CustomUserAttributes = append(c.CustomUserAttributes, ca)
	}
	if in.SyncUserAttributes != nil {
		c.SyncUserAttributes = []string{}
		for _, k := range in.SyncUserAttributes {
			if !isBuiltin(k) {
				return c, fault.Validation("syncUserAttributes", "syncUserAttributes: %q is not a catalog key", k)
			}
			if !slices.Contains(c.SyncUserAttributes, k) {
				c.SyncUserAttributes = append(c.SyncUserAttributes, k)
			}
		}
	}
	if in.PersonCardVisibleFields != nil {
		c.PersonCardVisibleFields = []string{}
		for _, k := range in.PersonCardVisibleFields {
			if !known[k] {
				return c, fault.Validation("personCardVisibleFields", "personCardVisibleFields: %q is neither a catalog key nor a custom attribute", k)
			}
			if !slices.Contains(c.PersonCardVisibleFields, k) {
				c.PersonCardVisibleFields = append(c.PersonCardVisibleFields, k)
			}
		}
	}
	for k, v := range in.AttributeMap {
		switch {
		case k == "login":
			return c, fault.Validation("attributeMap", "the login attribute is set by loginAttr of the connection settings")
		case !isBuiltin(k):
			return c, fault.Validation("attributeMap", "attributeMap: %q is not a catalog key", k)
		}
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if err := checkAttr("attributeMap", v); err != nil {
			return c, err
		}
		if c.AttributeMap == nil {
			c.AttributeMap = map[string]string{}
		}
		c.AttributeMap[k] = v
	}
	return c, nil
}
