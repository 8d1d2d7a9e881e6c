package main

import (
	"context"

	"coreportal/internal/preview"
)

// buildPreviews wires the preview job of library files: images scaled in
// Go, PDF and Office documents through LibreOffice when it is installed.
func (a *app) buildPreviews() {
	lim := preview.DefaultLimits()
	lim.Timeout, lim.MemoryMB = a.cfg.PreviewTimeout, a.cfg.PreviewMemoryMB
	a.previews = preview.New(context.Background(), a.cfg.PreviewSoffice, lim)
	a.libraries.UsePreviews(a.jobs, a.previews)
}
