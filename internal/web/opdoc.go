package web

import (
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"
)

// Helpers for documenting operations served by plain net/http handlers
// (streamed uploads and downloads), which Huma cannot describe from types.

// JSONAnswer documents a success envelope whose data is a T.
func JSONAnswer[T any](api huma.API, desc string) *huma.Response {
	s := api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[Envelope[T]](), true, "")
	return &huma.Response{Description: desc, Content: map[string]*huma.MediaType{"application/json": {Schema: s}}}
}

// FileAnswer documents bytes answered with one of the media types ("*/*"
// for a file's stored type).
func FileAnswer(desc string, mediaTypes ...string) *huma.Response {
	content := map[string]*huma.MediaType{}
	for _, mt := range mediaTypes {
		content[mt] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString, Format: "binary"}}
	}
	return &huma.Response{Description: desc, Content: content}
}

// StreamAnswer documents a server-sent event stream.
func StreamAnswer(desc string) *huma.Response {
	return &huma.Response{Description: desc, Content: map[string]*huma.MediaType{
		"text/event-stream": {Schema: &huma.Schema{Type: huma.TypeString, Description: "event-stream frames (event:, data:, comments)"}}}}
}

// MultipartBody documents a multipart/form-data body with one file part
// named part and optional text fields.
func MultipartBody(part, desc string, fields map[string]*huma.Schema) *huma.RequestBody {
	props := map[string]*huma.Schema{part: {Type: huma.TypeString, Format: "binary", Description: desc}}
	for k, v := range fields {
		props[k] = v
	}
	// parts of other names are ignored
	return &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"multipart/form-data": {Schema: &huma.Schema{
		Type: huma.TypeObject, Required: []string{part}, Properties: props, AdditionalProperties: true,
	}}}}
}

// MayConflict documents a 409 CONFLICT answer on an operation that reads
// (writes have it already).
func MayConflict(op huma.Operation) huma.Operation {
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	op.Responses["409"] = &huma.Response{Description: errorText[http.StatusConflict]}
	return op
}
