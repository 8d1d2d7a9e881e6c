package web

import (
	"encoding/json"
	"io"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// Attachment sets the headers of a streamed file download named
// <prefix>-<UTC time>.<ext> (audit and application log exports).
func Attachment(hc huma.Context, prefix, ext, contentType string) {
	name := prefix + "-" + time.Now().UTC().Format("20060102-150405") + "." + ext
	hc.SetHeader("Content-Disposition", `attachment; filename="`+name+`"`)
	hc.SetHeader("Content-Type", contentType)
}

// StreamJSONArray writes the values that each yields to w as one JSON array,
// one value at a time (constant memory); the array is closed even when each
// fails, and each's error is returned.
func StreamJSONArray[T any](w io.Writer, each func(yield func(T) error) error) error {
	_, _ = w.Write([]byte("["))
	enc := json.NewEncoder(w)
	first := true
	err := each(func(v T) error {
		if !first {
			_, _ = w.Write([]byte(","))
		}
		first = false
		return enc.Encode(v)
	})
	_, _ = w.Write([]byte("]\n"))
	return err
}
