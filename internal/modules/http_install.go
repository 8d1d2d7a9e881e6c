package modules

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/audit"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// Mount adds POST /modules/install as a plain net/http route: the package
// is streamed to a temporary file (Huma would hold it in memory).
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST "+web.Prefix+"/modules/install", h.install)
}

func (h *Handler) install(w http.ResponseWriter, r *http.Request) {
	// a package refused before it is read as a module (not an
	// administrator, not a ZIP, a bad entry or module.json) is audited here;
	// Service.Install audits the refusals that come later
	fail := func(err error) {
		refused(r.Context(), err)
		web.WriteError(w, r, err)
	}
	p, err := auth.RequireAdmin(r.Context())
	if err != nil {
		fail(err)
		return
	}
	withDeps := true
	switch v := r.URL.Query().Get("installDependencies"); v {
	case "", "true", "1":
	case "false", "0":
		withDeps = false
	default:
		fail(fault.Validation("installDependencies", "installDependencies must be true or false"))
		return
	}
	max := h.svc.Limits().MaxPackage
	tooLarge := fault.Validation("package", "the package is larger than %d bytes (50 MB)", max)
	// a declared body far over the limit is refused before anything is read
	if r.ContentLength > max+1<<20 {
		fail(tooLarge)
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		fail(fault.Validation("package", "the body must be multipart/form-data with a part named package"))
		return
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			fail(fault.Validation("package", "part package is missing"))
			return
		}
		if err != nil {
			fail(fault.Validation("package", "the multipart body is malformed"))
			return
		}
		if part.FormName() != "package" {
			part.Close()
			continue
		}
		pkg, err := h.receive(part, max)
		part.Close()
		if err == nil {
			err = web.RestOfForm(mr, "package")
		}
		if err != nil {
			fail(err)
			return
		}
		res, err := h.svc.Install(r.Context(), p, pkg, Options{InstallDependencies: withDeps, Upload: true})
		if err != nil {
			web.WriteError(w, r, err) // audited by Install
			return
		}
		status := http.StatusOK
		if !res.Skipped && !res.Upgraded {
			status = http.StatusCreated
		}
		web.WriteJSON(w, status, res)
		return
	}
}

// refused records an upload refused before it could be read as a module.
// Callers without a valid token are not recorded (anyone can send those).
func refused(ctx context.Context, err error) {
	fe, ok := fault.As(err)
	if !ok || fe.Code == fault.CodeUnauthorized {
		return
	}
	audit.Record(ctx, audit.Entry{Action: audit.ModuleInstall, ResourceType: "module", Outcome: "failure",
		Details: map[string]any{"source": "upload", "code": string(fe.Code), "reason": fe.Message}})
}

// receive copies the part to a temporary file (at most max bytes) and
// opens it as a package.
func (h *Handler) receive(part io.Reader, max int64) (*Package, error) {
	f, err := os.CreateTemp("", "coremod-*.zip")
	if err != nil {
		return nil, err
	}
	defer func() { f.Close(); os.Remove(f.Name()) }()
	n, err := io.Copy(f, io.LimitReader(web.ClientReader(part), max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, fault.Validation("package", "the package is larger than %d bytes (50 MB)", max)
	}
	return ReadPackage(f, n, h.svc.Limits(), h.svc.Provisioners())
}

// documentInstall adds the plain route to the OpenAPI document.
func (h *Handler) documentInstall(api huma.API) {
	o := web.Op(http.MethodPost, "/modules/install", "installModule", "Install a module package", web.Admin, "modules")
	o.Description += installDoc
	o.Responses = map[string]*huma.Response{"201": web.JSONAnswer[*Result](api, "installed"),
		"200": web.JSONAnswer[*Result](api, "skipped (same version) or upgraded"),
		"400": {Description: "invalid package or module.json, older version, oversized package"},
		"403": {Description: "not an administrator, or a vendor module"},
		"409": {Description: "unsatisfied requires: details.missing"}}
	o.Parameters = []*huma.Param{{Name: "installDependencies", In: "query", Description: depsDoc,
		Schema: &huma.Schema{Type: huma.TypeBoolean, Default: true}}}
	o.RequestBody = web.MultipartBody("package", packageDoc, nil)
	api.OpenAPI().AddOperation(&o)
}
