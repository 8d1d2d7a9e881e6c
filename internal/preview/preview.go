// Package preview renders preview images of stored documents: raster
// images are decoded and scaled in Go; PDF and Office documents are
// converted by LibreOffice in headless mode (soffice) when it is installed,
// inside a sandbox (time limit, address-space limit, no network when the
// system allows a network namespace, a fresh profile per run). Without
// soffice those formats simply get no preview.
package preview

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"
)

// Kinds of input a preview is made from.
const (
	KindImage  = "image"
	KindPDF    = "pdf"
	KindOffice = "office"
)

// Limits bound one rendering.
type Limits struct {
	MaxInput  int64 // bytes of input read (larger files get no preview)
	MaxPixels int64 // width*height of a decoded image
	// MaxDecoded bounds the bytes of a decoded image (width*height times
	// the bytes per pixel of its color model: a 16-bit RGBA PNG takes 8);
	// 0 means DefaultMaxDecoded.
	MaxDecoded int64
	MaxSide    int           // longest side of the preview image
	Timeout    time.Duration // wall clock of one soffice conversion
	MemoryMB   int           // address space of the soffice process
	MaxPDF     int64         // bytes of the first-page PDF kept
}

// DefaultLimits are the production bounds.
func DefaultLimits() Limits {
	return Limits{MaxInput: 64 << 20, MaxPixels: 50_000_000, MaxDecoded: DefaultMaxDecoded, MaxSide: 512, Timeout: 60 * time.Second, MemoryMB: 2048, MaxPDF: 8 << 20}
}

// DefaultMaxDecoded is the default bound of a decoded image's bytes.
const DefaultMaxDecoded = 128 << 20

// Result is a rendered preview: a PNG image, and for Office documents the
// first page as PDF.
type Result struct {
	PNG []byte
	PDF []byte
}

// ErrLimit marks an input that exceeds the limits (too large, too slow,
// too much memory); such a file gets no preview.
var ErrLimit = errors.New("preview: the document exceeds the preview limits")

// Renderer makes previews. The zero value renders images only.
type Renderer struct {
	Limits Limits
	office *office // nil: no LibreOffice
}

// New returns a renderer; soffice is the LibreOffice binary ("" = look up
// "soffice" in PATH, "off" = none). A binary that cannot be found means
// no PDF and Office previews, never an error.
func New(ctx context.Context, soffice string, lim Limits) *Renderer {
	return &Renderer{Limits: lim, office: findOffice(ctx, soffice)}
}

// Office says whether LibreOffice is available, and the sandbox it runs in.
func (r *Renderer) Office() (bool, string) {
	if r.office == nil {
		return false, ""
	}
	return true, r.office.sandbox()
}

var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true}

var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".bmp": true}

var officeExts = map[string]bool{".doc": true, ".docx": true, ".odt": true, ".rtf": true, ".xls": true, ".xlsx": true, ".ods": true,
	".ppt": true, ".pptx": true, ".odp": true, ".odg": true}

// Kind is the kind of preview a file gets ("" = none): by content type,
// else by extension. PDF and Office kinds need LibreOffice.
func (r *Renderer) Kind(name, mimeType string) string {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mimeType, ";", 2)[0]))
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case imageTypes[mt] || imageExts[ext] && (mt == "" || mt == "application/octet-stream"):
		return KindImage
	case r.office == nil:
		return ""
	case mt == "application/pdf" || ext == ".pdf":
		return KindPDF
	case officeExts[ext] || strings.HasPrefix(mt, "application/vnd.openxmlformats-officedocument.") ||
		strings.HasPrefix(mt, "application/vnd.oasis.opendocument.") || mt == "application/msword" || mt == "application/vnd.ms-excel" ||
		mt == "application/vnd.ms-powerpoint":
		return KindOffice
	}
	return ""
}

// Render makes the preview of the document in path (name and mimeType
// decide its kind). Office documents give a PNG and a first-page PDF, PDFs
// and images a PNG.
func (r *Renderer) Render(ctx context.Context, path, name, mimeType string) (*Result, error) {
	switch k := r.Kind(name, mimeType); k {
	case KindImage:
		png, err := scaleFile(ctx, path, r.Limits)
		if err != nil {
			return nil, err
		}
		return &Result{PNG: png}, nil
	case KindPDF, KindOffice:
		return r.office.render(ctx, path, k, r.Limits)
	default:
		return nil, errors.New("preview: no preview for this kind of file")
	}
}
