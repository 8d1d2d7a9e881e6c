package wopi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/filelock"
	"coreportal/internal/libraries"
	"coreportal/internal/web"
)

// Mount adds the WOPI host routes (outside the REST API: the document
// server calls them with access_token, never with a session).
func (s *Service) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /wopi/files/{fileId}", s.wrap(s.checkFileInfo))
	mux.HandleFunc("POST /wopi/files/{fileId}", s.wrap(s.filesPost))
	mux.HandleFunc("GET /wopi/files/{fileId}/contents", s.wrap(s.getFile))
	mux.HandleFunc("POST /wopi/files/{fileId}/contents", s.wrap(s.putFile))
}

// call is one authorised WOPI request.
type call struct {
	c     claims
	p     *auth.Principal
	token string
	file  libraries.FileOut
	write bool // the token allows writing and the user still has edit
}

// wrap checks the access token (401), the proof when one is sent (401 on a
// forged or stale proof) and the user's current right on the file.
func (s *Service) wrap(h func(w http.ResponseWriter, r *http.Request, c *call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		tok := r.URL.Query().Get("access_token")
		if tok == "" {
			tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		cl, err := s.sign.verify(tok, r.PathValue("fileId"), s.now())
		if err != nil {
			http.Error(w, "invalid access token", http.StatusUnauthorized)
			return
		}
		if proof := r.Header.Get("X-WOPI-Proof"); proof != "" {
			d, _ := s.disc.get(ctx, false)
			if d == nil || d.Proof == nil || !s.proofOK(ctx, r, tok, proof) {
				slog.WarnContext(ctx, "WOPI proof refused", "file", cl.File)
				http.Error(w, "invalid proof", http.StatusUnauthorized)
				return
			}
		}
		p, err := s.users(ctx, cl.User)
		if err != nil || p == nil || p.TokenVersion != cl.Version {
			// missing or inactive user, or a password changed or reset, a
			// deactivation or a lost administrator role since the token was minted
			http.Error(w, "invalid access token", http.StatusUnauthorized)
			return
		}
		if cl.CredKind != "" {
			if s.creds == nil || s.creds(ctx, cl.CredKind, cl.CredID) != nil {
				http.Error(w, "invalid access token", http.StatusUnauthorized)
				return
			}
		}
		ctx = auth.WithPrincipal(ctx, p)
		f, err := s.lib.File(ctx, p, cl.Library, cl.File)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		lvl, err := s.acl.Level(ctx, p, acl.Ref{Type: acl.File, ID: f.GUID})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, r.WithContext(ctx), &call{c: cl, p: p, token: tok, file: f, write: cl.Write && lvl >= acl.Edit})
	}
}

// proofOK checks the proof headers; a discovery refreshed since a failed
// check is tried once more (the server may have rotated its keys).
func (s *Service) proofOK(ctx context.Context, r *http.Request, tok, proof string) bool {
	u := s.publicBase(requestBase(r)) + r.URL.RequestURI()
	stamp, old := r.Header.Get("X-WOPI-TimeStamp"), r.Header.Get("X-WOPI-ProofOld")
	d, _ := s.disc.get(ctx, false)
	if d != nil && checkProof(d, tok, u, stamp, proof, old, s.now()) {
		return true
	}
	return false
}

// fail answers a service error the WOPI way: 404 for a missing file, 401
// for a right the user no longer has, 409 for a lock, else the API error.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case fault.Is(err, fault.CodeNotFound):
		http.Error(w, "file not found", http.StatusNotFound)
	case fault.Is(err, fault.CodeForbidden):
		http.Error(w, "not allowed", http.StatusUnauthorized)
	default:
		web.WriteError(w, r, err)
	}
}

func (s *Service) checkFileInfo(w http.ResponseWriter, r *http.Request, c *call) {
	f := c.file
	info := map[string]any{
		"BaseFileName": f.Name, "OwnerId": f.CreatedBy, "Size": f.FileSize, "UserId": c.p.UserID,
		"UserFriendlyName": c.p.DisplayName, "Version": version(f), "LastModifiedTime": f.UpdatedAt.UTC().Format("2006-01-02T15:04:05.0000000Z"),
		"UserCanWrite": c.write, "ReadOnly": !c.write, "UserCanNotWriteRelative": !c.write, "UserCanRename": false,
		"SupportsLocks": true, "SupportsGetLock": true, "SupportsExtendedLockLength": true, "SupportsUpdate": true,
		"SupportsRename": false, "SupportsDeleteFile": false, "IsAnonymousUser": false,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(info)
}

// version is the file's WOPI version: it changes with every save.
func version(f libraries.FileOut) string { return strconv.FormatInt(f.UpdatedAt.UnixNano(), 36) }

func (s *Service) getFile(w http.ResponseWriter, r *http.Request, c *call) {
	ct, err := s.lib.Download(r.Context(), c.p, c.c.Library, c.file.GUID, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer ct.Body.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(ct.Size, 10))
	w.Header().Set("X-WOPI-ItemVersion", version(c.file))
	_, _ = io.Copy(w, ct.Body)
}

// conflict answers 409 with the current lock id (empty when the file is
// unlocked or locked by a WebDAV client, which the reason header says).
func conflict(w http.ResponseWriter, l *filelock.Lock, reason string) {
	id := ""
	if l != nil && l.Kind == filelock.WOPI {
		id = l.Token
	} else if l != nil {
		reason = "locked by a WebDAV client"
	}
	w.Header().Set("X-WOPI-Lock", id)
	w.Header().Set("X-WOPI-LockFailureReason", reason)
	w.WriteHeader(http.StatusConflict)
}

func (s *Service) putFile(w http.ResponseWriter, r *http.Request, c *call) {
	if !c.write {
		http.Error(w, "the access token does not allow writing", http.StatusUnauthorized)
		return
	}
	ctx := r.Context()
	want := r.Header.Get("X-WOPI-Lock")
	l, err := s.locks.Get(ctx, c.file.GUID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	switch {
	case l == nil && (want != "" || c.file.FileSize > 0):
		conflict(w, nil, "the file is not locked")
		return
	case l != nil && (l.Kind != filelock.WOPI || l.Token != want):
		conflict(w, l, "the file is locked with another lock")
		return
	case l != nil && l.Holder != c.p.UserID:
		// another user of the same editing session saves: the session's lock passes to them
		if err := s.relock(ctx, c, want); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	parent := ""
	if c.file.ParentID != nil {
		parent = strconv.FormatInt(*c.file.ParentID, 10)
	}
	out, _, err := s.lib.Upload(ctx, c.p, c.c.Library, parent, c.file.Name, c.file.MimeType, web.ClientReader(r.Body), nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("X-WOPI-ItemVersion", version(out))
	w.WriteHeader(http.StatusOK)
}

// relock moves a WOPI lock to the caller keeping its id.
func (s *Service) relock(ctx context.Context, c *call, id string) error {
	if err := s.locks.Unlock(ctx, c.file.GUID, id); err != nil && !errors.Is(err, filelock.ErrNoLock) {
		return err
	}
	_, err := s.locks.Lock(ctx, filelock.Request{FileID: c.file.GUID, Holder: c.p.UserID, Token: id, Kind: filelock.WOPI, TTL: s.cfg.LockTTL})
	return err
}

// filesPost dispatches the X-WOPI-Override operations on a file.
func (s *Service) filesPost(w http.ResponseWriter, r *http.Request, c *call) {
	switch strings.ToUpper(r.Header.Get("X-WOPI-Override")) {
	case "LOCK":
		if old := r.Header.Get("X-WOPI-OldLock"); old != "" {
			s.unlockAndRelock(w, r, c, old)
			return
		}
		s.lock(w, r, c)
	case "UNLOCK":
		s.unlock(w, r, c)
	case "REFRESH_LOCK":
		s.refreshLock(w, r, c)
	case "GET_LOCK":
		l, err := s.locks.Get(r.Context(), c.file.GUID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		id := ""
		if l != nil && l.Kind == filelock.WOPI {
			id = l.Token
		}
		w.Header().Set("X-WOPI-Lock", id)
		w.WriteHeader(http.StatusOK)
	case "PUT_RELATIVE":
		s.putRelative(w, r, c)
	case "PUT_USER_INFO":
		w.WriteHeader(http.StatusOK)
	default:
		http.Error(w, "unsupported X-WOPI-Override", http.StatusNotImplemented)
	}
}

func (s *Service) lock(w http.ResponseWriter, r *http.Request, c *call) {
	id := r.Header.Get("X-WOPI-Lock")
	if !c.write || id == "" {
		conflict(w, nil, "locking needs the edit right and a lock id")
		return
	}
	ctx := r.Context()
	cur, err := s.locks.Get(ctx, c.file.GUID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if cur != nil && cur.Kind == filelock.WOPI && cur.Token == id {
		s.refreshLock(w, r, c)
		return
	}
	if cur != nil {
		conflict(w, cur, "the file is locked")
		return
	}
	if _, err := s.locks.Lock(ctx, filelock.Request{FileID: c.file.GUID, Holder: c.p.UserID, Token: id, Kind: filelock.WOPI, TTL: s.cfg.LockTTL}); err != nil {
		cur, _ = s.locks.Get(ctx, c.file.GUID)
		conflict(w, cur, "the file is locked")
		return
	}
	w.Header().Set("X-WOPI-ItemVersion", version(c.file))
	w.WriteHeader(http.StatusOK)
}

// matching returns the file's lock when it is the WOPI lock id (else it
// answers the 409 itself and returns nil).
func (s *Service) matching(w http.ResponseWriter, r *http.Request, c *call, id string) *filelock.Lock {
	cur, err := s.locks.Get(r.Context(), c.file.GUID)
	if err != nil {
		s.fail(w, r, err)
		return nil
	}
	if cur == nil || cur.Kind != filelock.WOPI || cur.Token != id || id == "" {
		conflict(w, cur, "the lock id does not match")
		return nil
	}
	return cur
}

func (s *Service) unlock(w http.ResponseWriter, r *http.Request, c *call) {
	id := r.Header.Get("X-WOPI-Lock")
	if s.matching(w, r, c, id) == nil {
		return
	}
	if err := s.locks.Unlock(r.Context(), c.file.GUID, id); err != nil && !errors.Is(err, filelock.ErrNoLock) {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("X-WOPI-ItemVersion", version(c.file))
	w.WriteHeader(http.StatusOK)
}

func (s *Service) refreshLock(w http.ResponseWriter, r *http.Request, c *call) {
	id := r.Header.Get("X-WOPI-Lock")
	if s.matching(w, r, c, id) == nil {
		return
	}
	if _, err := s.locks.Refresh(r.Context(), c.file.GUID, id, s.cfg.LockTTL); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Service) unlockAndRelock(w http.ResponseWriter, r *http.Request, c *call, old string) {
	if s.matching(w, r, c, old) == nil {
		return
	}
	ctx := r.Context()
	if err := s.locks.Unlock(ctx, c.file.GUID, old); err != nil && !errors.Is(err, filelock.ErrNoLock) {
		s.fail(w, r, err)
		return
	}
	id := r.Header.Get("X-WOPI-Lock")
	if _, err := s.locks.Lock(ctx, filelock.Request{FileID: c.file.GUID, Holder: c.p.UserID, Token: id, Kind: filelock.WOPI, TTL: s.cfg.LockTTL}); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// putRelative saves the body as a new file beside this one (save as):
// X-WOPI-RelativeTarget is the exact name (409 when taken, unless
// X-WOPI-OverwriteRelativeTarget: true), X-WOPI-SuggestedTarget a name or
// an extension (".pdf") adjusted until it is free.
func (s *Service) putRelative(w http.ResponseWriter, r *http.Request, c *call) {
	if !c.write { // a view token (view right or a read-only credential) never saves
		http.Error(w, "the access token does not allow writing", http.StatusUnauthorized)
		return
	}
	ctx := r.Context()
	parent := ""
	if c.file.ParentID != nil {
		parent = strconv.FormatInt(*c.file.ParentID, 10)
	}
	exact, suggested := r.Header.Get("X-WOPI-RelativeTarget"), r.Header.Get("X-WOPI-SuggestedTarget")
	name := exact
	if exact == "" {
		name = suggested
		if strings.HasPrefix(name, ".") {
			name = strings.TrimSuffix(c.file.Name, path.Ext(c.file.Name)) + name
		}
	}
	name = path.Base(strings.ReplaceAll(strings.TrimSpace(name), "\\", "/"))
	if name == "" || name == "." || name == "/" {
		http.Error(w, "a target name is required", http.StatusBadRequest)
		return
	}
	taken, err := s.lib.NameTaken(ctx, c.p, c.c.Library, parent, name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if taken && exact != "" && !strings.EqualFold(r.Header.Get("X-WOPI-OverwriteRelativeTarget"), "true") {
		w.Header().Set("X-WOPI-ValidRelativeTarget", freeName(ctx, s, c, parent, name))
		w.WriteHeader(http.StatusConflict)
		return
	}
	if taken && exact == "" {
		name = freeName(ctx, s, c, parent, name)
	}
	out, _, err := s.lib.Upload(ctx, c.p, c.c.Library, parent, name, "", web.ClientReader(r.Body), nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	exp := s.now().Add(s.cfg.TokenTTL)
	nc := c.c
	nc.File, nc.Write, nc.Expires = out.GUID, c.write, exp.UnixMilli()
	tok := s.sign.sign(nc)
	src := s.publicBase(requestBase(r)) + "/wopi/files/" + out.GUID
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"Name": out.Name, "Url": src + "?access_token=" + tok})
}

// freeName is name with " (n)" before its extension for the first n free.
func freeName(ctx context.Context, s *Service, c *call, parent, name string) string {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 2; n < 100; n++ {
		cand := stem + " (" + strconv.Itoa(n) + ")" + ext
		if taken, err := s.lib.NameTaken(ctx, c.p, c.c.Library, parent, cand); err == nil && !taken {
			return cand
		}
	}
	return stem + " (" + strconv.FormatInt(s.now().UnixNano(), 36) + ")" + ext
}
