package libraries

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/web"
)

// preview serves a version's preview image or first-page PDF.
func (h *Handler) preview(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	q := r.URL.Query()
	pv, err := h.svc.Preview(r.Context(), p, r.PathValue("libraryId"), r.PathValue("fileRef"), q.Get("versionId"), q.Get("format"))
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", pv.MimeType)
	hd.Set("ETag", `"`+pv.VersionID+`-`+q.Get("format")+`"`)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("Cache-Control", "private, no-cache")
	name := pv.Name + ".png"
	if pv.MimeType == "application/pdf" {
		name = pv.Name + ".pdf"
	}
	hd.Set("Content-Disposition", "inline"+strings.TrimPrefix(web.ContentDisposition(name), "attachment"))
	web.ServeContent(w, r, pv.MadeAt, bytes.NewReader(pv.Body), int64(len(pv.Body)))
}

// documentPreview adds the preview route to the OpenAPI document.
func (h *Handler) documentPreview(api huma.API) {
	o := web.Op(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}/preview", "previewFile", "Preview of a file version", web.User, "libraries")
	o.Description = "View on the file. The preview of the current version (or of versionId), made by a background job of type libraries.preview " +
		"(see GET /jobs) after each upload or version restore and kept per version until the version is purged with its file. " +
		"format=png (default): a PNG whose longest side is at most 512 pixels, for images (PNG, JPEG, GIF, WebP, BMP; at most 50 megapixels), " +
		"PDFs and Office documents (doc, docx, odt, rtf, xls, xlsx, ods, ppt, pptx, odp, odg; the first page). format=pdf: the first page " +
		"of an Office document as PDF. PDFs and Office documents are rendered only when LibreOffice (soffice) is installed, in headless mode " +
		"with a time limit (CORE_PREVIEW_TIMEOUT, default 60 s), an address-space limit (CORE_PREVIEW_MEMORY_MB, default 2048, through prlimit), " +
		"no network (a network namespace through unshare -n where the system allows it) and a fresh profile per conversion; " +
		"without it they get no preview. Files over 64 MiB, documents over the limits and unreadable files get none. The file listing says " +
		"whether a preview exists (has_preview, has_preview_pdf). 404 when the version has no such preview (not made yet, not a kind " +
		"that gets one, failed), the file or the version does not exist; 403 without view on the file; 400 for a folder, a malformed " +
		"versionId or format. The answer carries ETag, Last-Modified, X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox."
	o.Parameters = []*huma.Param{
		{Name: "fileRef", In: "path", Required: true, Schema: &huma.Schema{Type: huma.TypeString}, Description: "the file's number in the library or its guid (malformed: 400)"},
		{Name: "format", In: "query", Schema: &huma.Schema{Type: huma.TypeString, Enum: []any{"png", "pdf"}}, Description: "png (default) or pdf"},
		{Name: "versionId", In: "query", Schema: &huma.Schema{Type: huma.TypeString, Format: "uuid"}, Description: "a version of the file (GET .../versions); default the current one"},
	}
	o.Responses = map[string]*huma.Response{"200": web.FileAnswer("the preview", "image/png", "application/pdf")}
	api.OpenAPI().AddOperation(&o)
}
