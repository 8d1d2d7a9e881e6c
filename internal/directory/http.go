package directory

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/web"
)

// Handler serves the directory settings and search.
type Handler struct{ svc *Service }

// NewHandler builds the handler.
func NewHandler(svc *Service) *Handler { return &Handler{svc: svc} }

// Register adds the routes.
func (h *Handler) Register(api huma.API) {
	op := web.Op(http.MethodGet, "/admin/settings/ldap", "getLdapSettings", "Directory connection settings (config of service ad-sync)", web.Admin, "admin-directory")
	op.Description += " bindPassword is never returned (hasPassword instead). Empty fields use defaults. configured is true when url, baseDn, bindDn and the password are set. The settings were moved once from the legacy LDAP_* variables on the first start after an upgrade (see README)."
	web.Register(api, op, h.getConnection)
	op = web.Op(http.MethodPut, "/admin/settings/ldap", "putLdapSettings", "Replace the directory connection settings", web.Admin, "admin-directory")
	op.Description += " Every field is replaced (an omitted field becomes empty = its default), except bindPassword: omit it or send ******** to keep the stored one (400 when url or bindDn changed: re-enter it), send \"\" to clear it." +
		" Checked: url is ldap:// or ldaps:// with a host, and one CORE_DIRECTORY_ALLOWED_HOSTS allows when that is set (400 on url otherwise; the same rule refuses to connect to a stored url it does not allow); baseDn, bindDn, bindPassword, userFilter and searchFilter hold no control characters (CR, LF, TAB, NUL, DEL, C1: 400 naming the field); baseDn and bindDn are DNs; userFilter contains {{username}} and searchFilter {{query}} and both compile as RFC 4515 filters; attribute names; tlsCaCert is PEM; startTls only with ldap://." +
		" TLS certificates are always verified (against tlsCaCert when set, else the system's CAs); a certificate error is reported by ldap-status, never skipped." +
		" When an entry has no objectSid (OpenLDAP), externalIdAttr (default entryUUID) gives external_id."
	web.Register(api, op, h.putConnection)
	op = web.Op(http.MethodGet, "/admin/settings/ldap-status", "getLdapStatus", "Check the directory connection now", web.Admin, "admin-directory")
	op.Description += " Connects, binds as the service account and reads baseDn within connectTimeoutMs. Always 200: connected=false with error in words: not configured, url not allowed by CORE_DIRECTORY_ALLOWED_HOSTS, \"cannot reach the directory server (category)\" with one of the categories refused, timeout, TLS (a certificate that is not trusted says so), not LDAP (something answered that does not speak LDAP) and unknown host, service account refused, base DN missing, or the LDAP result of another refusal. Nothing else of the connection error is told (not the server's address, not the low-level error), so the check cannot map ports; the application log keeps the detail (warning \"directory: cannot reach the directory server\" with url, category and err)."
	web.Register(api, op, h.status)
	op = web.Op(http.MethodGet, "/admin/settings/ldap-sync", "getLdapSyncSettings", "Directory sync settings (config of service ad-sync)", web.Admin, "admin-directory")
	op.Description += " With the effective values, the built-in attribute catalog and the defaults."
	web.Register(api, op, h.getSync)
	op = web.Op(http.MethodPut, "/admin/settings/ldap-sync", "putLdapSyncSettings", "Replace the directory sync settings", web.Admin, "admin-directory")
	op.Description += " Every field is replaced; omitted = default. syncFilter and groupSyncFilter hold no control characters (400 naming the field). Sync rules: users are read with syncFilter by paged search (RFC 2696, 500 per page), at most syncLimit per pass; login and external_id always, email and displayName to the user, the chosen catalog keys and every custom attribute to directory_attrs," +
		" the photo (catalog key thumbnailPhoto; map it to jpegPhoto for OpenLDAP with attributeMap) to the blob store under avatars/{userId} (written only when its SHA-256 changed), the manager DN resolved to manager_user_id after the pass." +
		" AD accounts disabled by userAccountControl are deactivated; users the sync deactivated are reactivated when they are back, users an administrator deactivated are not." +
		" cronDeactivateMissing deactivates domain users missing from a complete pass (never when syncLimit cut it short). With syncGroups, groupSyncFilter entries (member / uniqueMember) become domain_linked groups; nested groups are expanded (a member of a member group is a member)," +
		" removeMissingGroupMembers (default true) removes members no longer listed, removeMissingGroups deletes domain_linked groups no longer found. Portal groups are never touched." +
		" Runs are jobs adSync.run (POST /services/ad-sync/run, optional {deactivateMissing}; or the cron schedule): the result counts users (seen, created, updated, reactivated, unchanged, deactivated, managersChanged), groups (seen, created, updated, unchanged, removed, membershipChanged), photos (written, removed) and errors (entries that could not be applied, with up to 20 texts; e.g. a login held by a local account, which is never taken over)." +
		" Writes go 100 entries per transaction. A directory that cannot be reached, or is lost during a pass, fails the job at once (no retry; the next run tries again) and deactivates nobody. One sync runs at a time across instances (409 CONFLICT in the job otherwise)."
	web.Register(api, op, h.putSync)
	op = web.Op(http.MethodGet, "/directory/search", "searchDirectory", "Search people in the directory", web.Admin, "admin-directory")
	op.Description += " q is inserted into searchFilter escaped per RFC 4515 (so * ( ) \\ and NUL match literally). At most searchLimit people (truncated=true when more match); existsLocally says whether a portal user has this directory id or domain login. 409 CONFLICT when the directory is not configured, 503 UNAVAILABLE when it cannot be reached."
	web.Register(api, web.MayConflict(op), h.search)
}

func (h *Handler) getConnection(ctx context.Context, _ *struct{}) (*web.Out[ConnectionSettings], error) {
	return web.Reply(h.svc.Connection(ctx))
}

// ConnectionPut is the body of PUT /admin/settings/ldap; the read-only
// properties of the GET (hasPassword, configured, defaults) are accepted and ignored.
type ConnectionPut struct {
	web.ReadOnlyFrom[ConnectionSettings]
	ConnectionInput
}

type putConnectionIn struct{ Body ConnectionPut }

func (h *Handler) putConnection(ctx context.Context, in *putConnectionIn) (*web.Out[ConnectionSettings], error) {
	return web.Reply(h.svc.PutConnection(ctx, in.Body.ConnectionInput))
}

func (h *Handler) status(ctx context.Context, _ *struct{}) (*web.Out[Status], error) {
	return web.Reply(h.svc.Status(ctx))
}

func (h *Handler) getSync(ctx context.Context, _ *struct{}) (*web.Out[SyncSettings], error) {
	return web.Reply(h.svc.SyncSettings(ctx))
}

// SyncPut is the body of PUT /admin/settings/ldap-sync; the read-only
// properties of the GET (the effective values, the attribute catalogue) are
// accepted and ignored.
type SyncPut struct {
	web.ReadOnlyFrom[SyncSettings]
	SyncInput
}

type putSyncIn struct{ Body SyncPut }

func (h *Handler) putSync(ctx context.Context, in *putSyncIn) (*web.Out[SyncSettings], error) {
	return web.Reply(h.svc.PutSync(ctx, in.Body.SyncInput))
}

type searchIn struct {
	Q string `query:"q" required:"true" minLength:"1" maxLength:"200" doc:"text to find in login, name, email (searchFilter)"`
}

func (h *Handler) search(ctx context.Context, in *searchIn) (*web.Out[SearchResult], error) {
	return web.Reply(h.svc.Search(ctx, in.Q))
}
