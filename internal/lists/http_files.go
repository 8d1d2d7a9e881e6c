package lists

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/live"
	"coreportal/internal/web"
)

// Mount adds the plain net/http routes that stream bodies (attachment upload
// and download); Huma would buffer them.
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.HandleFunc("POST "+web.Prefix+"/lists/{listId}/items/{itemId}/attachments", h.upload)
	mux.HandleFunc("GET "+web.Prefix+"/attachments/{id}/download", h.download)
}

// upload reads the multipart body part by part and streams part "file" to the blob store.
func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		web.WriteError(w, r, fault.Validation("file", "the body must be multipart/form-data with a part named file"))
		return
	}
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
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		if err := web.CheckText("file", part.FileName()); err != nil {
			part.Close()
			web.WriteError(w, r, err)
			return
		}
		// ClientReader: a body cut short (no closing boundary) is the client's fault, 400.
		// onlyFile: a second file part fails the read, so nothing is stored (400).
		a, err := h.svc.Upload(r.Context(), p, r.PathValue("listId"), r.PathValue("itemId"), part.FileName(), part.Header.Get("Content-Type"), web.ClientReader(onlyFile{part, mr}))
		part.Close()
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		web.WriteJSON(w, http.StatusCreated, a)
		return
	}
}

// onlyFile reads the file part and, at its end, the rest of the form: a
// second part named file is an error (the upload is refused and nothing is
// stored) instead of being silently ignored; other parts are skipped.
type onlyFile struct {
	part io.Reader
	mr   *multipart.Reader
}

func (o onlyFile) Read(p []byte) (int, error) {
	n, err := o.part.Read(p)
	if !errors.Is(err, io.EOF) {
		return n, err
	}
	for {
		next, nerr := o.mr.NextPart()
		if errors.Is(nerr, io.EOF) {
			return n, io.EOF
		}
		if nerr != nil {
			return n, nerr
		}
		name := next.FormName()
		next.Close()
		if name == "file" {
			return n, fault.Validation("file", "send one file part per request")
		}
	}
}

func (h *Handler) download(w http.ResponseWriter, r *http.Request) {
	p, err := auth.Require(r.Context())
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	a, rc, err := h.svc.Download(r.Context(), p, r.PathValue("id"))
	if err != nil {
		web.WriteError(w, r, err)
		return
	}
	defer rc.Close()
	hd := w.Header()
	hd.Set("Content-Type", a.ContentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("Content-Disposition", web.ContentDisposition(a.FileName))
	web.ServeContent(w, r, a.CreatedAt, rc, a.Size)
}

// Streamer serves the SSE stream of item changes (internal/live.Hub).
type Streamer interface {
	Stream(w http.ResponseWriter, r *http.Request, wt live.Watch) error
}

// Recheck validates the caller of an open stream again (auth.Service.Recheck).
type Recheck func(ctx context.Context, p *auth.Principal) error

// MountLive adds GET …/items/live?ids= (view on the list, then view on each
// item per event; the caller is re-checked by recheck while the stream is open).
func (h *Handler) MountLive(mux *http.ServeMux, st Streamer, recheck Recheck) {
	mux.HandleFunc("GET "+web.Prefix+"/lists/{listId}/items/live", func(w http.ResponseWriter, r *http.Request) {
		p, err := auth.Require(r.Context())
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		listID := r.PathValue("listId")
		ids, err := ParseIDs(r.URL.Query().Get("ids"), 100)
		if err != nil {
			web.WriteError(w, r, err)
			return
		}
		if _, err := h.svc.open(r.Context(), p, listID, acl.View); err != nil {
			web.WriteError(w, r, err)
			return
		}
		_ = st.Stream(w, r, live.Watch{ListID: listID, IDs: ids, UserID: p.UserID,
			Valid:   func(ctx context.Context) error { return recheck(ctx, p) },
			CanView: func(ctx context.Context, n int64) bool { return h.svc.CanViewItem(ctx, p, listID, n) }})
	})
}
