package idempotency

import (
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"
)

// paramName is the reusable header parameter of the API reference.
const paramName = "IdempotencyKey"

// paramDoc is the rule every creating operation documents.
const paramDoc = "Makes a retry safe: the first answer of a POST carrying this key (1 to 255 visible ASCII characters, for example a UUID) is kept 24 hours for the signed-in user, " +
	"and a retry with the same key, method, path and body gets that answer again (same status and body, header Idempotent-Replayed: true) without a second create. " +
	"The same key with another body, method or path answers 409 CONFLICT. A retry while the first request is still running waits for its answer up to 10 seconds, then answers 409 with Retry-After. " +
	"If the server that ran the first request stopped mid-way, a retry runs it again once the key's 30-second lease has passed, unless the first request had already saved its change, " +
	"which answers 409 (look the result up). Answers of 5xx, 401, 408 and 429 are not kept: a retry runs again. " +
	"A success whose answer holds a secret shown only once (a new app password or service token) is never kept: a retry with the same key answers 409 (look the result up). Any authenticated POST accepts the header; requests without it are not affected."

// creating names the operations that create something but answer 200 (or
// are documented by hand), besides every POST documented with a 201.
var creating = []string{"quickEditItems", "uploadFile", "uploadAttachment", "submitSurvey"}

// Document adds the reusable header parameter to the document and to every
// creating POST added after this call.
func Document(oapi *huma.OpenAPI) {
	if oapi.Components == nil {
		oapi.Components = &huma.Components{}
	}
	if oapi.Components.Parameters == nil {
		oapi.Components.Parameters = map[string]*huma.Param{}
	}
	oapi.Components.Parameters[paramName] = &huma.Param{Name: Header, In: "header", Description: paramDoc,
		Schema: &huma.Schema{Type: huma.TypeString, MinLength: ptr(1), MaxLength: ptr(255), Pattern: "^[!-~]+$"}}
	oapi.OnAddOperation = append(oapi.OnAddOperation, func(_ *huma.OpenAPI, op *huma.Operation) {
		if op.Method != http.MethodPost {
			return
		}
		if op.DefaultStatus != http.StatusCreated && op.Responses["201"] == nil && !slices.Contains(creating, op.OperationID) {
			return
		}
		ref := "#/components/parameters/" + paramName
		if slices.ContainsFunc(op.Parameters, func(p *huma.Param) bool { return p.Ref == ref }) {
			return
		}
		op.Parameters = append(op.Parameters, &huma.Param{Ref: ref})
	})
}

func ptr(n int) *int { return &n }
