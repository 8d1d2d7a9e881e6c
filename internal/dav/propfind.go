package dav

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// fastProps are the live properties the fast PROPFIND writes itself.
var fastProps = map[string]bool{"resourcetype": true, "getcontentlength": true, "getlastmodified": true,
	"getetag": true, "getcontenttype": true, "displayname": true}

// fastNames reads a PROPFIND body that asks only for fastProps by name
// (what Windows, macOS and most clients send for a folder listing); ok is
// false for anything else (allprop, propname, dead properties), which
// webdav's handler answers.
func fastNames(body []byte) ([]string, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, false
	}
	var pf struct {
		XMLName xml.Name `xml:"DAV: propfind"`
		Prop    *struct {
			Any []struct{ XMLName xml.Name } `xml:",any"`
		} `xml:"DAV: prop"`
		Other []struct{ XMLName xml.Name } `xml:",any"`
	}
	if err := xml.Unmarshal(body, &pf); err != nil || pf.Prop == nil || len(pf.Other) > 0 || len(pf.Prop.Any) == 0 {
		return nil, false
	}
	var out []string
	for _, p := range pf.Prop.Any {
		if p.XMLName.Space != "DAV:" || !fastProps[p.XMLName.Local] {
			return nil, false
		}
		out = append(out, p.XMLName.Local)
	}
	return out, true
}

// fastPropfind answers a PROPFIND Depth: 0 or 1 asking for fastProps only,
// in one pass over the folder read once (a folder of 10,000 files). It
// reports false, having written nothing, when the request is not one.
func (h *Handler) fastPropfind(w http.ResponseWriter, r *http.Request, fs *FS, body []byte) bool {
	depth := r.Header.Get("Depth")
	names, ok := fastNames(body)
	if !ok || (depth != "0" && depth != "1") {
		return false
	}
	name := strings.TrimPrefix(r.URL.Path, Prefix)
	ctx := r.Context()
	self, err := fs.resolve(ctx, name)
	if err != nil || hidden(name) {
		return false
	}
	rs := []*res{self}
	if depth == "1" && self.isDir() {
		children, err := fs.list(ctx, name, self)
		if err != nil {
			return false
		}
		rs = append(rs, children...)
	}
	base := path.Clean("/" + name)
	var b bytes.Buffer
	b.Grow(400 * len(rs))
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:">`)
	for i, x := range rs {
		p := base
		if i > 0 {
			p = path.Join(base, x.name)
		}
		writeResponse(ctx, &b, p, x, names)
	}
	b.WriteString(`</D:multistatus>`)
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(http.StatusMultiStatus)
	_, _ = io.Copy(w, &b)
	return true
}

func writeResponse(ctx context.Context, b *bytes.Buffer, p string, x *res, names []string) {
	href := path.Join(Prefix, p)
	if x.isDir() {
		href += "/"
	}
	b.WriteString("<D:response><D:href>")
	_ = xml.EscapeText(b, []byte((&url.URL{Path: href}).EscapedPath()))
	b.WriteString("</D:href><D:propstat><D:prop>")
	fi := info{x}
	var missing []string
	for _, n := range names {
		switch n {
		case "resourcetype":
			if x.isDir() {
				b.WriteString("<D:resourcetype><D:collection/></D:resourcetype>")
			} else {
				b.WriteString("<D:resourcetype></D:resourcetype>")
			}
		case "getcontentlength":
			if x.isDir() {
				missing = append(missing, n)
				continue
			}
			b.WriteString("<D:getcontentlength>" + strconv.FormatInt(fi.Size(), 10) + "</D:getcontentlength>")
		case "getlastmodified":
			b.WriteString("<D:getlastmodified>" + fi.ModTime().UTC().Format(http.TimeFormat) + "</D:getlastmodified>")
		case "getetag":
			e, _ := fi.ETag(ctx)
			b.WriteString("<D:getetag>")
			_ = xml.EscapeText(b, []byte(e))
			b.WriteString("</D:getetag>")
		case "getcontenttype":
			if x.isDir() {
				missing = append(missing, n)
				continue
			}
			t, _ := fi.ContentType(ctx)
			b.WriteString("<D:getcontenttype>")
			_ = xml.EscapeText(b, []byte(t))
			b.WriteString("</D:getcontenttype>")
		case "displayname":
			b.WriteString("<D:displayname>")
			if p != "/" {
				_ = xml.EscapeText(b, []byte(fi.Name()))
			}
			b.WriteString("</D:displayname>")
		}
	}
	b.WriteString("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>")
	if len(missing) > 0 {
		b.WriteString("<D:propstat><D:prop>")
		for _, n := range missing {
			b.WriteString("<D:" + n + "/>")
		}
		b.WriteString("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>")
	}
	b.WriteString("</D:response>")
}
