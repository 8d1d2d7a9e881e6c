package console

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// minCompress is the smallest file worth compressing.
const minCompress = 256

// encodings the console's text files are offered in, most preferred first
// when the client accepts several equally.
var encodings = []string{"br", "zstd", "gzip"}

// types pins the media types of the build's files, independent of the
// host's MIME tables.
var types = map[string]string{
	".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
	".json": "application/json", ".webmanifest": "application/manifest+json", ".map": "application/json",
	".svg": "image/svg+xml", ".txt": "text/plain; charset=utf-8", ".xml": "application/xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon",
	".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".wasm": "application/wasm",
}

// compressible are the extensions of text files, sent compressed when the
// client accepts it.
var compressible = map[string]bool{".html": true, ".js": true, ".mjs": true, ".css": true, ".json": true,
	".webmanifest": true, ".map": true, ".svg": true, ".txt": true, ".xml": true}

// file is one file of the build with its compressed forms.
type file struct {
	name     string // path inside the build, e.g. "assets/index-3f2a.js"
	body     []byte
	ctype    string
	tag      string // digest of body, the base of each representation's ETag
	html     bool
	compress bool

	once    [3]sync.Once
	encoded [3][]byte // per encodings index; nil when not smaller than body
}

func newFile(name string, body []byte) *file {
	ext := strings.ToLower(path.Ext(name))
	ct := types[ext]
	if ct == "" {
		ct = mime.TypeByExtension(ext)
	}
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	sum := sha256.Sum256(body)
	return &file{name: name, body: body, ctype: ct, tag: base64.RawURLEncoding.EncodeToString(sum[:16]),
		html: ext == ".html", compress: compressible[ext] && len(body) >= minCompress}
}

// variant returns the body in encoding i, compressing it on first use; nil
// when that form is not smaller.
func (f *file) variant(i int) []byte {
	f.once[i].Do(func() {
		out, err := encode(encodings[i], f.body)
		if err == nil && len(out) < len(f.body) {
			f.encoded[i] = out
		}
	})
	return f.encoded[i]
}

// encode compresses b, once per file and process, at levels that cost tens
// of milliseconds for a 300 KB bundle on the first request (measured: brotli
// 6 is 8 % smaller than gzip 9 in 34 ms; brotli 11 saves 9 % more but takes
// 3 s, too long for the first visitor).
func encode(enc string, b []byte) ([]byte, error) {
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch enc {
	case "br":
		w = brotli.NewWriterLevel(&buf, 6)
	case "zstd":
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		w = zw
	default:
		gw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		w = gw
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serve answers GET or HEAD with the representation the client accepts
// best, its ETag, 304 to a matching If-None-Match and ranges (by
// http.ServeContent).
func (f *file) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	body, enc := f.body, ""
	if f.compress {
		addVary(h)
		for _, i := range preference(r.Header.Values("Accept-Encoding")) {
			if v := f.variant(i); v != nil {
				body, enc = v, encodings[i]
				break
			}
		}
	}
	if enc != "" {
		h.Set("Content-Encoding", enc)
		h.Set("ETag", `"`+f.tag+"."+enc+`"`)
	} else {
		h.Set("ETag", `"`+f.tag+`"`)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// addVary adds Accept-Encoding to Vary unless it is there already (the
// API's compression middleware adds it to every answer).
func addVary(h http.Header) {
	for _, v := range h.Values("Vary") {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}

// preference lists the indexes of encodings the Accept-Encoding values
// allow, best first: by q-value, then by the order of encodings. A coding
// with q=0 is refused; "*" stands for any coding not named.
func preference(values []string) []int {
	q := map[string]float64{}
	star := -1.0
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			weight := 1.0
			if k, val, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
					weight = f
				}
			}
			if name == "*" {
				star = weight
			} else if name != "" {
				q[name] = weight
			}
		}
	}
	var out []int
	for i, e := range encodings {
		if wt(q, star, e) > 0 {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		return cmp.Compare(wt(q, star, encodings[b]), wt(q, star, encodings[a]))
	})
	return out
}

func wt(q map[string]float64, star float64, enc string) float64 {
	if w, ok := q[enc]; ok {
		return w
	}
	return star
}
