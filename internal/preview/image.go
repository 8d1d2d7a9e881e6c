package preview

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"  // decoder
	_ "image/jpeg" // decoder
	"image/png"
	"io"
	"os"

	_ "golang.org/x/image/bmp" // decoder
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decoder
)

// decoding lets one image decode run at a time in the process: each may
// take up to MaxDecoded bytes, and jobs run several at once.
var decoding = make(chan struct{}, 1)

// scaleFile decodes the image in path and scales it (see scale).
func scaleFile(ctx context.Context, path string, lim Limits) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return scaleOne(ctx, f, lim)
}

// scaleOne is scale, one at a time (see decoding).
func scaleOne(ctx context.Context, r io.ReadSeeker, lim Limits) ([]byte, error) {
	select {
	case decoding <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-decoding }()
	return scale(r, lim)
}

// bytesPerPixel is what the decoder of an image with color model m
// allocates per pixel (an upper bound; 8 for a model it does not know).
func bytesPerPixel(m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		return 4
	}
	return 8
}

// scale decodes an image and scales it so that its longest side is at most
// lim.MaxSide (never up), as PNG. The declared size is checked before the
// pixels are decoded, so an image declaring huge dimensions costs nothing.
func scale(r io.ReadSeeker, lim Limits) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(r)
	if err != nil {
		return nil, fmt.Errorf("preview: not a readable image: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > lim.MaxPixels {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrLimit, cfg.Width, cfg.Height)
	}
	maxDecoded := lim.MaxDecoded
	if maxDecoded <= 0 {
		maxDecoded = DefaultMaxDecoded
	}
	if n := int64(cfg.Width) * int64(cfg.Height) * bytesPerPixel(cfg.ColorModel); n > maxDecoded {
		return nil, fmt.Errorf("%w: %dx%d pixels take %d MiB decoded", ErrLimit, cfg.Width, cfg.Height, n>>20)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	src, _, err := image.Decode(r)
	if err != nil {
		return nil, fmt.Errorf("preview: not a readable image: %w", err)
	}
	return scaleImage(src, lim.MaxSide)
}

// scaleImage scales src to fit maxSide (keeping its proportions) and
// encodes it as PNG.
func scaleImage(src image.Image, maxSide int) ([]byte, error) {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > maxSide || h > maxSide {
		if w >= h {
			w, h = maxSide, max(1, h*maxSide/b.Dx())
		} else {
			w, h = max(1, w*maxSide/b.Dy()), maxSide
		}
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, dst); err != nil {
		return nil, fmt.Errorf("preview: encode: %w", err)
	}
	return buf.Bytes(), nil
}
