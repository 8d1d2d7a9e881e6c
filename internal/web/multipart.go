package web

import (
	"errors"
	"io"
	"mime/multipart"

	"coreportal/internal/fault"
)

// RestOfForm reads the parts of a multipart body after its single upload
// part (named filePart): a second one answers 400 (which would be meant?),
// and so does a part named in before, which had to come before the bytes to
// count; other parts are skipped.
func RestOfForm(mr *multipart.Reader, filePart string, before ...string) error {
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fault.Validation(filePart, "the multipart body is malformed")
		}
		name := part.FormName()
		part.Close()
		if name == filePart {
			return fault.Validation(filePart, "send one %s part per request", filePart)
		}
		for _, b := range before {
			if name == b {
				return fault.Validation(b, "%s must come before the %s part", b, filePart)
			}
		}
	}
}
