// Package users owns user accounts: the card, the administration endpoints,
// the bootstrap accounts and the account lookups that sign-in uses.
package users

import (
	"encoding/json"
	"time"
)

// User is one row of the users table.
type User struct {
	ID                string
	Login             string
	DisplayName       string
	Email             string
	AuthSource        string
	PasswordHash      string
	IsActive          bool
	IsCoreAdmin       bool
	IsSeedAdmin       bool
	IsSystem          bool
	ExternalID        string
	DirectoryAttrs    map[string]string
	ManagerUserID     string
	AvatarHash        string
	AvatarContentType string
	TokenVersion      int
	// DirectoryDN and ManagerDN are the entry's and its manager's DN (normalised) as ad-sync last saw them.
	DirectoryDN string
	ManagerDN   string
	// DirectoryDeactivated: the sync (not an administrator) deactivated the account.
	DirectoryDeactivated bool
	// Language and TimeZone are the user's preferences; empty: not chosen.
	Language  string
	TimeZone  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Summary is a user in listings.
type Summary struct {
	ID          string    `json:"id" format:"uuid"`
	Login       string    `json:"login"`
	DisplayName string    `json:"display_name"`
	Email       string    `json:"email"`
	AuthSource  string    `json:"auth_source" enum:"local,domain"`
	IsCoreAdmin bool      `json:"is_core_admin"`
	IsSeedAdmin bool      `json:"is_seed_admin"`
	IsActive    bool      `json:"is_active"`
	CreatedAt   time.Time `json:"created_at"`
}

// Card is the full card of a user (GET /auth/me, GET /admin/users/{id}).
type Card struct {
	Summary
	ExternalID      *string           `json:"external_id"`
	UpdatedAt       time.Time         `json:"updated_at"`
	DirectoryAttrs  map[string]string `json:"directory_attrs"`
	AttributeSchema []Attribute       `json:"attribute_schema"`
	ManagerUserID   *string           `json:"manager_user_id"`
	HasAvatar       bool              `json:"has_avatar"`
	Preferences     Preferences       `json:"preferences" doc:"the user's own interface preferences (PATCH /auth/me/preferences)"`
}

// Preferences are a user's own interface settings; null: not chosen (the
// console follows the browser).
type Preferences struct {
	Language *LanguageName `json:"language" doc:"interface language: ru or en; null follows the browser"`
	TimeZone *string       `json:"timeZone" doc:"IANA time zone name such as Europe/Moscow; null follows the browser"`
}

// Attribute is one entry of the effective sync field schema.
type Attribute struct {
	Key          string `json:"key"`
	LDAPAttr     string `json:"ldapAttr"`
	Label        string `json:"label"`
	IsCoreColumn bool   `json:"isCoreColumn"`
	IsBuiltin    bool   `json:"isBuiltin"`
}

// BuiltinAttributes is the built-in directory attribute catalog; the
// directory settings may extend it with custom attributes.
var BuiltinAttributes = []Attribute{
	{Key: "login", LDAPAttr: "sAMAccountName", Label: "Login", IsCoreColumn: true, IsBuiltin: true},
	{Key: "displayName", LDAPAttr: "displayName", Label: "Display name", IsCoreColumn: true, IsBuiltin: true},
	{Key: "email", LDAPAttr: "mail", Label: "Email", IsCoreColumn: true, IsBuiltin: true},
	{Key: "department", LDAPAttr: "department", Label: "Department", IsBuiltin: true},
	{Key: "title", LDAPAttr: "title", Label: "Job title", IsBuiltin: true},
	{Key: "telephoneNumber", LDAPAttr: "telephoneNumber", Label: "Phone", IsBuiltin: true},
	{Key: "mobile", LDAPAttr: "mobile", Label: "Mobile", IsBuiltin: true},
	{Key: "company", LDAPAttr: "company", Label: "Company", IsBuiltin: true},
	{Key: "office", LDAPAttr: "physicalDeliveryOfficeName", Label: "Office", IsBuiltin: true},
	{Key: "manager", LDAPAttr: "manager", Label: "Manager", IsBuiltin: true},
	{Key: "thumbnailPhoto", LDAPAttr: "thumbnailPhoto", Label: "Photo", IsBuiltin: true},
}

func (u *User) summary() Summary {
	return Summary{ID: u.ID, Login: u.Login, DisplayName: u.DisplayName, Email: u.Email, AuthSource: u.AuthSource,
		IsCoreAdmin: u.IsCoreAdmin, IsSeedAdmin: u.IsSeedAdmin, IsActive: u.IsActive, CreatedAt: u.CreatedAt}
}

func (u *User) card() Card {
	c := Card{Summary: u.summary(), UpdatedAt: u.UpdatedAt, DirectoryAttrs: u.DirectoryAttrs,
		AttributeSchema: BuiltinAttributes, HasAvatar: u.AvatarHash != ""}
	if c.DirectoryAttrs == nil {
		c.DirectoryAttrs = map[string]string{}
	}
	if u.ExternalID != "" {
		c.ExternalID = &u.ExternalID
	}
	if u.ManagerUserID != "" {
		c.ManagerUserID = &u.ManagerUserID
	}
	c.Preferences = u.preferences()
	return c
}

func (u *User) preferences() Preferences {
	var p Preferences
	if u.Language != "" {
		l := LanguageName(u.Language)
		p.Language = &l
	}
	if u.TimeZone != "" {
		p.TimeZone = &u.TimeZone
	}
	return p
}

func decodeAttrs(raw string) map[string]string {
	m := map[string]string{}
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &m)
	}
	return m
}
