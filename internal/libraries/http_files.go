package libraries

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/web"
)

// OptParent is a parentId in a PATCH body: absent (Sent false), null, a
// folder number or a guid.
type OptParent struct {
	Sent  bool
	Value any
}

// UnmarshalJSON records that the key was sent.
func (o *OptParent) UnmarshalJSON(b []byte) error {
	o.Sent = true
	return json.Unmarshal(b, &o.Value)
}

// Schema documents the field as a folder number, a guid or null.
func (o OptParent) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Description: "folder number or guid; null, 0 or empty = the library root", OneOf: []*huma.Schema{
		{Type: huma.TypeInteger}, {Type: huma.TypeString, Nullable: true}}}
}

// parentString reads a JSON parentId (number, string or null).
func parentString(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case nil:
		return ""
	}
	return "invalid"
}

// Mount adds the plain net/http routes that stream bodies (upload, download); Huma would buffer them.
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST "+web.Prefix+"/libraries/{libraryId}/files", h.upload)
	mux.HandleFunc("GET "+web.Prefix+"/libraries/{libraryId}/files/{fileRef}/download", h.download)
	mux.HandleFunc("GET "+web.Prefix+"/libraries/{libraryId}/files/{fileRef}/preview", h.preview)
}

// maxFormField bounds the small form fields read before the file part.
const maxFormField = 1024

// upload reads the multipart body part by part: form field parentId (when it
// comes before the file) and part "file", streamed to the blob store.
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	// a declared body far over the limit is refused before anything is read or stored
	if r.ContentLength > h.svc.maxUpload+1<<20 {
		web.WriteError(w, r, fault.New(fault.CodeTooLarge, "the file is larger than %d bytes", h.svc.maxUpload).With("field", "file"))
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		web.WriteError(w, r, fault.Validation("file", "the body must be multipart/form-data with a part named file"))
		return
	}
	parentID := r.URL.Query().Get("parentId")
	seenParent := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			web.WriteError(w, r, fault.Validation("file", "part file is missing"))
			return
		}
		if err != nil {
			web.WriteError(w, r, fault.Validation("file", "the multipart body is malformed"))
			return
		}
		switch part.FormName() {
		case "parentId":
			b, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
			part.Close()
			if err != nil || len(b) > maxFormField {
				web.WriteError(w, r, fault.Validation("parentId", "parentId is not valid"))
				return
			}
			if seenParent {
				web.WriteError(w, r, fault.Validation("parentId", "parentId must be given once"))
				return
			}
			seenParent = true
			parentID = strings.TrimSpace(string(b))
			continue
		case "file":
		default:
			part.Close()
			continue
		}
		if err := web.CheckText("file", part.FileName()); err != nil {
			part.Close()
			web.WriteError(w, r, err)
			return
		}
		// the rest of the form is read once the bytes are stored, before
		// anything is recorded: a parentId after the file or a second file answers 400
		finish := func() error {
			part.Close()
			return web.RestOfForm(mr, "file", "parentId")
		}
		// ClientReader: a body cut short (no closing boundary) is the client's fault, 400.
		f, created, err := h.svc.Upload(r.Context(), p, r.PathValue("libraryId"), parentID, part.FileName(), part.Header.Get("Content-Type"), web.ClientReader(part), finish)
		part.Close()
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		web.WriteJSON(w, status, f)
		return
	}
}

// download serves the current bytes with Range, ETag / If-None-Match and
// If-Modified-Since support (web.ServeContent over a seekable blob reader).
func (h *Handler) download(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	c, err := h.svc.Download(r.Context(), p, r.PathValue("libraryId"), r.PathValue("fileRef"), r.URL.Query().Get("version"))
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	defer c.Body.Close()
	hd := w.Header()
	hd.Set("Content-Type", c.MimeType)
	hd.Set("ETag", c.ETag)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("Cache-Control", "private, no-cache")
	hd.Set("Content-Disposition", disposition(c, r.URL.Query().Get("inline") == "true"))
	web.ServeContent(w, r, c.Modified, c.Body, c.Size)
}

// previewable are the content types a download may answer inline (for the
// console's preview): images other than SVG, PDF and plain text. Everything
// else, HTML and SVG above all, is always an attachment.
func previewable(mimeType string) bool {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	switch mt {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "application/pdf", "text/plain":
		return true
	}
	return false
}

// disposition is attachment, or inline when asked for a previewable type.
func disposition(c *Content, inline bool) string {
	d := web.ContentDisposition(c.Name)
	if inline && previewable(c.MimeType) {
		d = "inline" + strings.TrimPrefix(d, "attachment")
	}
	return d
}

// documentStreams adds the plain net/http routes to the OpenAPI document.
func (h *Handler) documentStreams(api huma.API) {
	doc := func(method, path, id, summary, desc string, responses map[string]*huma.Response, body *huma.RequestBody) huma.Operation {
		o := web.Op(method, path, id, summary, web.User, "libraries")
		o.Description = desc
		o.Responses = responses
		o.RequestBody = body
		return o
	}
	up := doc(http.MethodPost, "/libraries/{libraryId}/files", "uploadFile", "Upload a file",
		"Add on the library or the parent folder. The file part is streamed to the blob store (never held in memory). "+
			"Uploading a name that exists in the folder (case-insensitive) adds a new version of that file (parallel uploads of one new name make one file, 201, and versions of it, 200) (edit on it is needed as well; field values stay) and answers 200; a new file answers 201; a folder of that name, or a file the caller cannot view, answers the same 409 (names are unique per folder, so a caller with add learns that a name is taken, as in SharePoint, but nothing else about a hidden entry). Required custom fields are not checked. "+textDoc,
		map[string]*huma.Response{"201": web.JSONAnswer[FileOut](api, "the new file record"), "200": web.JSONAnswer[FileOut](api, "the file record with its new version")},
		web.MultipartBody("file", uploadPartDoc, map[string]*huma.Schema{
			"parentId": {Type: huma.TypeString, Description: "the folder to upload into: its number or guid; absent: the library root. At most once and before the file part (a parentId part after it, a second parentId or a second file part answers 400 and stores nothing)"}}))
	up.Parameters = []*huma.Param{{Name: "parentId", In: "query", Description: "the folder to upload into (number or guid), instead of the parentId part", Schema: &huma.Schema{Type: huma.TypeString}}}
	api.OpenAPI().AddOperation(&up)
	down := doc(http.MethodGet, "/libraries/{libraryId}/files/{fileRef}/download", "downloadFile", "Download a file",
		"View on the file. The stored content type, X-Content-Type-Options: nosniff, Content-Security-Policy: sandbox, Content-Disposition: attachment with an ASCII filename and the exact UTF-8 name in filename* (RFC 6266), ETag (changes with every version), Last-Modified, Accept-Ranges. Range requests answer 206; overlapping and adjacent ranges are coalesced into one (in the place of the first), and a Range that still names more than 16 ranges, or several ranges whose multipart/byteranges answer would be larger than the file, is answered 200 with the whole file (RFC 9110 14.2), so an answer never carries more than about the file's size; a set with no satisfiable range (every start at or past the end, or the zero-length suffix bytes=-0) answers 416 with Content-Range: bytes */size (an empty file answers 200); a syntactically invalid Range (bytes=5-2, another unit) is ignored as RFC 9110 says: 200 with the whole content; If-None-Match / If-Modified-Since answer 304. HEAD gives the headers only. A folder answers 400. A missing library or file answers 404; one that exists but the caller lacks the right on answers 403. While the file store cannot be reached the answer is 503 UNAVAILABLE, given before any header or byte of the content. With ?version=<version id> (see listFileVersions) the bytes of that version are served the same way (its content type, its id as ETag, its date as Last-Modified); a version id that is not a UUID answers 400, one that is not a version of this file 404. With ?inline=true a PNG, JPEG, GIF, WebP or BMP image, a PDF or text/plain is answered with Content-Disposition: inline (for a preview in the browser; the sandbox CSP and nosniff stay); every other type, HTML and SVG included, stays an attachment.",
		map[string]*huma.Response{"200": web.FileAnswer("the bytes, with the file's stored content type", "*/*")}, nil)
	down.Parameters = []*huma.Param{{Name: "fileRef", In: "path", Required: true, Schema: &huma.Schema{Type: huma.TypeString},
		Description: "the file's number in the library or its guid (malformed: 400)"},
		{Name: "version", In: "query", Schema: &huma.Schema{Type: huma.TypeString, Format: "uuid"},
			Description: "a version id: serve that version's bytes instead of the current ones"},
		{Name: "inline", In: "query", Schema: &huma.Schema{Type: huma.TypeBoolean},
			Description: "true: Content-Disposition inline for images, PDF and plain text (preview)"}}
	api.OpenAPI().AddOperation(&down)
}

// uploadPartDoc describes the file part of an upload.
const uploadPartDoc = `the file, at most CORE_MAX_UPLOAD_MB (413 PAYLOAD_TOO_LARGE otherwise, nothing stored). ` +
	`Its name is the part's file name reduced to its last path element with control characters (C0, DEL, C1: CR, LF, NEL, …) and ` +
	`bidirectional override/isolate marks removed, the last 255 characters kept. Its content type is the part's Content-Type checked against ` +
	`the first 512 bytes (sniffed): a missing or application/octet-stream type takes the sniffed one; a declared type with a byte signature ` +
	`(images, audio, video, fonts, PDF, ZIP, gzip, HTML) that the bytes do not carry is corrected to the sniffed type; other declared types ` +
	`(text/csv, Office documents) are kept.`

// textDoc tells what happens to the text of an upload (upload endpoint).
const textDoc = `Search: the file is indexed by name and field values at once; for txt, md, csv, tsv, html, docx, xlsx, pptx, odt and pdf ` +
	`(by extension, else by content type) a background job of type search.extractText (see GET /jobs) then extracts the text of the new version ` +
	`and adds it to the file's search entry, usually within seconds. Bounds per file: 64 MiB read (longer plain text is cut there, other formats fail), ` +
	`256 KiB of text kept, 256 MiB inflated and 10,000 entries for ZIP-based formats, 2,000 PDF pages, 30 s. A malformed or hostile document ` +
	`(zip bomb, endless PDF, encrypted PDF) fails its job with the reason and nothing else: the file stays stored and findable by name.`
