package wopi

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// MountAPI adds GET /libraries/{libraryId}/files/{fileRef}/edit (a plain
// route: the editor address is built from the request's origin when
// CORE_PUBLIC_URL is not set) and documents it.
func (s *Service) MountAPI(mux *http.ServeMux, api huma.API) {
	mux.HandleFunc("GET "+web.Prefix+"/libraries/{libraryId}/files/{fileRef}/edit", func(w http.ResponseWriter, r *http.Request) {
		p, err := auth.Require(r.Context())
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		out, err := s.Edit(r.Context(), p, r.PathValue("libraryId"), r.PathValue("fileRef"), requestBase(r))
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		web.WriteJSON(w, http.StatusOK, out)
	})
	o := web.Op(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}/edit", "editFile", "Open a file in the Office editor", web.User, "libraries")
	o.Description = "View on the file. Answers the Office editor's address for the file (from the WOPI discovery of CORE_OFFICE_URL, " +
		"read at {url}/hosting/discovery and kept for an hour) and an access token for the caller and this file only, valid 2 hours: " +
		"mode edit with the edit right (UserCanWrite true), mode view with view only or when the caller signed in with a read-only " +
		"credential (an app password of scope read-only, a service token of scope read: the token never writes). The editor calls this host's WOPI endpoints " +
		"(/wopi/files/{guid}: CheckFileInfo, GetFile, PutFile, Lock/Unlock/RefreshLock/GetLock, PutRelativeFile) with the token; every call " +
		"re-checks the user's current right (and answers 401 once the user's password was changed or reset, the account deactivated, " +
		"even if reactivated since, or the administrator role lost after the token was issued, or once the app password or service token " +
		"it was issued with is revoked or expired), a save adds a version authored by the user, locks are the WebDAV locks (a file locked in one " +
		"is locked in the other) and requests carrying X-WOPI-Proof are checked against the discovery's proof key (RSA SHA-256; a forged " +
		"or stale proof answers 401). 400 for a folder or a file type the editor does not open; 403 without view; 404 for a missing file; " +
		"503 UNAVAILABLE when no Office editor is configured or its discovery cannot be read."
	o.Parameters = []*huma.Param{{Name: "fileRef", In: "path", Required: true, Schema: &huma.Schema{Type: huma.TypeString},
		Description: "the file's number in the library or its guid (malformed: 400)"}}
	o.Responses = map[string]*huma.Response{"200": web.JSONAnswer[EditOut](api, "the editor address and access token")}
	api.OpenAPI().AddOperation(&o)
}
