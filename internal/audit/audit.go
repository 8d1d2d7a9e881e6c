// Package audit keeps the audit log: who did what to which resource, when,
// from where. It is separate from the application log and append-only through
// the API (no operation changes or deletes a record).
//
// Capabilities record through one call:
//
//	audit.Record(ctx, audit.Entry{Action: audit.ACLGrant, ResourceType: "list", ResourceID: id, After: rec})
//
// Record joins the transaction bound to ctx (store.InTx), so an audit record
// is written if and only if the change it describes commits. The actor (user,
// login, address) is taken from ctx unless the entry names one. Values under
// secret keys (passwords, tokens, …) in Before, After and Details are never
// stored.
package audit

import (
	"context"
	"sync/atomic"
	"time"
)

// Common actions. Capabilities may use other dotted names ("<noun>.<verb>").
const (
	SignIn        = "auth.sign_in"
	SignInFailed  = "auth.sign_in_failed"
	SignOut       = "auth.sign_out"
	ACLGrant      = "acl.grant"
	ACLRevoke     = "acl.revoke"
	ACLBreak      = "acl.break_inheritance"
	ACLRestore    = "acl.restore_inheritance"
	UserCreate    = "user.create"
	UserUpdate    = "user.update"
	UserPassword  = "user.reset_password"
	GroupCreate   = "group.create"
	GroupUpdate   = "group.update"
	GroupDelete   = "group.delete"
	GroupMembers  = "group.members"
	SettingsSave  = "settings.update"
	ServiceUpdate = "service.update"
	Delete        = "resource.delete"
	Restore       = "recyclebin.restore"
	Purge         = "recyclebin.purge"
	ModuleInstall = "module.install"
	LicenceSet    = "licence.activate"
	BackupRun     = "backup.run"
	BackupRestore = "backup.restore"
	BackupDelete  = "backup.delete"
	LogPurge      = "applog.purge"
	LogClear      = "applog.clear"
	UpdateStart   = "update.start"
	SearchClear   = "search.clear"
)

// Entry is one audit record as a capability describes it.
type Entry struct {
	Action       string // dotted verb, e.g. audit.ACLGrant
	ResourceType string // e.g. "list", "user", "service"
	ResourceID   string
	// Outcome is "success" (default) or "failure".
	Outcome string
	// Before and After are the relevant state around a change (JSON-encodable).
	Before any
	After  any
	// Details carries anything else worth keeping (JSON-encodable).
	Details map[string]any
	// Actor overrides the caller taken from ctx (sign-in attempts, jobs).
	Actor *Actor
}

// Actor is who acted and from where.
type Actor struct {
	ID      string `json:"id,omitempty"`
	Login   string `json:"login"`
	Address string `json:"address,omitempty"`
}

// Recorder writes entries; *Log is the one used by the service.
type Recorder interface {
	Record(ctx context.Context, e Entry)
}

var current atomic.Pointer[Recorder]

// Use makes r the recorder behind Record (set once at start-up).
func Use(r Recorder) { current.Store(&r) }

// Record writes e with the recorder installed by Use; without one (unit
// tests of other packages) it does nothing. It never fails the caller's
// operation by itself: a write error is logged (inside a transaction on
// PostgreSQL the failed statement makes the commit fail, as it should).
func Record(ctx context.Context, e Entry) {
	if r := current.Load(); r != nil {
		(*r).Record(ctx, e)
	}
}

// Row is a stored audit record as the API returns it.
type Row struct {
	ID            string         `json:"id"`
	At            time.Time      `json:"at"`
	ActorID       string         `json:"actorId,omitempty"`
	ActorLogin    string         `json:"actorLogin"`
	ActorAddress  string         `json:"actorAddress,omitempty"`
	Action        string         `json:"action"`
	ResourceType  string         `json:"resourceType,omitempty"`
	ResourceID    string         `json:"resourceId,omitempty"`
	Outcome       string         `json:"outcome"`
	Details       map[string]any `json:"details"`
	CorrelationID string         `json:"correlationId,omitempty"`
}

// Filter selects records; empty fields match everything.
type Filter struct {
	Actor        string // user id or login
	Action       string // exact, or a prefix ending in "." ("acl.")
	ResourceType string
	ResourceID   string
	From, To     time.Time
}
