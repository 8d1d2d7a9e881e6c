package directory

import (
	"strconv"
	"strings"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/users"
)

// person is a directory user entry mapped to what the portal keeps.
type person struct {
	users.DirectoryEntry
	photo    []byte
	hasPhoto bool // the photo attribute is synchronised (absent = remove)
}

// userAttributes are the LDAP attributes read for people; withPhoto adds the
// photo attribute (ad-sync only).
func (c Config) userAttributes(withPhoto bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(a string) {
		if a != "" && !seen[strings.ToLower(a)] {
			seen[strings.ToLower(a)] = true
			out = append(out, a)
		}
	}
	add(c.loginAttr())
	add("objectClass")
	add("objectSid")
	add(c.idAttr())
	add("cn")
	add("userAccountControl")
	for _, it := range c.catalog() {
		if it.Key == "thumbnailPhoto" && !withPhoto {
			continue
		}
		if it.IsCoreColumn || c.syncs(it.Key) {
			add(it.LDAPAttr)
		}
	}
	for _, ca := range c.CustomUserAttributes {
		add(ca.LDAPAttr)
	}
	return out
}

// toPerson maps an entry. Core columns (login, display name, email) are
// always read; the other catalog keys only when synchronised; custom
// attributes always.
func (c Config) toPerson(e *ldap.Entry) person {
	var p person
	p.DN = normDN(e.DN)
	p.ExternalID = externalID(c, e)
	p.Login = e.GetEqualFoldAttributeValue(c.loginAttr())
	p.DisplayName = e.GetEqualFoldAttributeValue(c.attr("displayName"))
	if p.DisplayName == "" {
		p.DisplayName = e.GetEqualFoldAttributeValue("cn")
	}
	p.Email = e.GetEqualFoldAttributeValue(c.attr("email"))
	if uac, err := strconv.ParseInt(e.GetEqualFoldAttributeValue("userAccountControl"), 10, 64); err == nil && uac&2 != 0 {
		p.Disabled = true // ACCOUNTDISABLE
	}
	p.Attrs = map[string]string{}
	for _, it := range c.catalog() {
		if it.IsCoreColumn || !c.syncs(it.Key) {
			continue
		}
		switch it.Key {
		case "manager":
			if v := e.GetEqualFoldAttributeValue(it.LDAPAttr); v != "" {
				p.ManagerDN = normDN(v)
			}
		case "thumbnailPhoto":
			p.hasPhoto = true
			p.photo = rawEqualFold(e, it.LDAPAttr)
		default:
			if v := strings.Join(e.GetEqualFoldAttributeValues(it.LDAPAttr), ", "); v != "" {
				p.Attrs[it.Key] = v
			}
		}
	}
	for _, ca := range c.CustomUserAttributes {
		if v := strings.Join(e.GetEqualFoldAttributeValues(ca.LDAPAttr), ", "); v != "" {
			p.Attrs[ca.Key] = v
		}
	}
	return p
}

// isComputer says whether an entry is an AD computer account.
func isComputer(e *ldap.Entry) bool {
	for _, oc := range e.GetEqualFoldAttributeValues("objectClass") {
		if strings.EqualFold(oc, "computer") {
			return true
		}
	}
	return false
}

func rawEqualFold(e *ldap.Entry, name string) []byte {
	for _, a := range e.Attributes {
		if strings.EqualFold(a.Name, name) && len(a.ByteValues) > 0 {
			return a.ByteValues[0]
		}
	}
	return nil
}
