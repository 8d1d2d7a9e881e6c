package web

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// Prefix is the REST prefix of SPEC.md.
const Prefix = "/api/v1"

// Policy says who may call an operation; the auth middleware enforces it.
type Policy string

const (
	Public Policy = "public" // no authentication
	User   Policy = "user"   // any signed-in user
	Admin  Policy = "admin"  // role core_admin
)

// PolicyKey is the operation metadata key carrying the Policy.
const PolicyKey = "policy"

// NewAPI creates the Huma API on mux, serving the OpenAPI 3.1 document at
// /api/v1/openapi.json (a 3.0 rendering at /api/v1/openapi-3.0.json) and
// the reference page at /api/docs, with an index of both at /api and
// /api/v1. version is the one `coreportal version`
// prints.
func NewAPI(mux *http.ServeMux, version string) huma.API {
	cfg := huma.Config{
		OpenAPI: &huma.OpenAPI{
			OpenAPI: "3.1.0",
			Info: &huma.Info{
				Title:       "Core Portal API",
				Version:     version,
				Description: apiDescription,
				Contact:     &huma.Contact{Name: "Core Portal support (the vendor that issued the licence key)"},
				License: &huma.License{Name: "Proprietary: use needs a licence key (GET /api/v1/admin/license)",
					Identifier: "LicenseRef-CorePortal-Proprietary"},
			},
			Servers: []*huma.Server{{URL: "/", Description: "the server that serves this document"}},
			Tags:    documentTags(),
			Components: &huma.Components{
				Schemas: huma.NewMapRegistry("#/components/schemas/", SchemaName),
				SecuritySchemes: map[string]*huma.SecurityScheme{
					"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT"},
					"cookie": {Type: "apiKey", In: "cookie", Name: "core_token",
						Description: "The session cookie that POST /auth/login sets (HttpOnly, SameSite=Lax). Every write (POST, PUT, PATCH, DELETE) " +
							"authenticated by it must carry the header " + CSRFHeader + ": " + CSRFValue + "; without it the API answers 403 FORBIDDEN " +
							"(details.header names it) and changes nothing. POST /auth/login needs no such header; bearer calls never do."},
					"runnerToken": {Type: "apiKey", In: "header", Name: "X-Core-Update-Token"},
				},
			},
		},
		SchemasPath:   Prefix + "/schemas",
		Formats:       formats(),
		DefaultFormat: "application/json",
	}
	cfg.OpenAPI.OnAddOperation = append(cfg.OpenAPI.OnAddOperation, documentOperation)
	api := humago.New(mux, cfg)
	serveDocuments(mux, api.OpenAPI())
	serveIndex(mux, version)
	serveDocs(mux)
	return api
}

// Op describes one operation. Paths are given without the /api/v1 prefix.
func Op(method, path, id, summary string, policy Policy, tags ...string) huma.Operation {
	op := huma.Operation{
		OperationID: id,
		Method:      method,
		Path:        Prefix + path,
		Summary:     summary,
		Tags:        tags,
		Metadata:    map[string]any{PolicyKey: policy},
		// Huma's own 5 s body deadline would stay on the connection after the
		// body is read and cancel long requests (and the keep-alive
		// connection); BodyDeadline paces body reads instead.
		BodyReadTimeout: -1,
	}
	if policy != Public {
		op.Security = []map[string][]string{{"bearer": {}}, {"cookie": {}}}
	}
	if policy == Admin {
		op.Description = "Administrators only (role core_admin)."
	}
	return op
}

// Register adds an operation whose handler errors go through FromError.
func Register[I, O any](api huma.API, op huma.Operation, h func(context.Context, *I) (*O, error)) {
	huma.Register(api, op, func(ctx context.Context, in *I) (*O, error) {
		out, err := h(ctx, in)
		if err != nil {
			return nil, FromError(ctx, err)
		}
		return out, nil
	})
}

// PolicyOf returns the policy of a Huma operation (User when unset).
func PolicyOf(op *huma.Operation) Policy {
	if op == nil {
		return User
	}
	if p, ok := op.Metadata[PolicyKey].(Policy); ok {
		return p
	}
	return User
}

const apiDescription = `REST interface of Core Portal. Every JSON answer is the envelope
{ "success": bool, "data": …, "meta": {…}, "error": { "code", "message", "details" } }.

Error codes: 400 VALIDATION_ERROR (malformed JSON, unknown body fields, bad UUIDs, bad query
parameters; details.field names the field; a value the JSON decoding refuses is named by its
property path and the JSON type expected, e.g. "maxRows: number 1e999 is out of range"), 401 UNAUTHORIZED, 403 FORBIDDEN, 404 NOT_FOUND
(also unknown routes and wrong methods), 409 CONFLICT, 413 PAYLOAD_TOO_LARGE, 423 LICENSE_READ_ONLY or FILE_LOCKED (details.holder: the user holding the lock),
429 RATE_LIMITED, 503 UNAVAILABLE, 500 INTERNAL (the message carries a correlation id, never internals).

Authentication: Authorization: Bearer <token> from POST /auth/login, or the core_token cookie.
A write (POST, PUT, PATCH, DELETE) authenticated by the cookie must carry the header
X-Requested-With: CorePortal (a cross-site form cannot send it, and a cross-site script would need a
CORS preflight, which the API never approves) and, when it sends Origin, the portal's own; otherwise
403 FORBIDDEN and nothing changes. POST /auth/login is exempt; calls with a bearer token need neither.
Tokens are HS256 JWTs valid for CORE_TOKEN_TTL (default 12 h); tokens of deactivated users stop
working at once on the instance that deactivated them and within 10 s on other instances.
Failed sign-ins are throttled: after 5 failures for one login, or 20 from one address, within
15 minutes further attempts answer 429 RATE_LIMITED until the window passes (the answer does not
reveal whether the login exists).

Failures outside the request: 503 UNAVAILABLE while the database (or another backend) cannot be
reached (retry later; the outage is logged once by the server); 408 when a request body arrives
slower than the minimum rate (CORE_BODY_GRACE plus one second per CORE_BODY_MIN_RATE bytes); a
request whose client goes away is logged as cancelled and not answered. Request processing itself
has no time limit. Live item events are published after commit from a queue: a shared bus
(Redis) that is down never slows a save, its events are dropped until it is back.

Writing back what was read: the body of a PUT or PATCH also accepts the properties that the GET
of the same resource returns and the write does not take (ids, timestamps, counters, computed
flags such as hasPassword): they are marked readOnly in the body's schema, must have the type the
GET gives, and are ignored (they never change anything). Any other unknown property is refused.

Text: every path segment, query parameter (including JSON filters and sorts), JSON body value and
multipart file name must be valid UTF-8 without NUL: a NUL (raw or \u0000), invalid or overlong
UTF-8, and UTF-16 surrogates (raw or as a lone \uD800-\uDFFF escape) answer 400 VALIDATION_ERROR.

Paged listings take page (default 1) and limit (1-500, default 50) and answer meta
{ page, limit, total, totalPages }.

This document is served at /api/v1/openapi.json (OpenAPI 3.1) and /api/v1/openapi-3.0.json
(the same as OpenAPI 3.0, for tools that read only 3.0); GET /api and GET /api/v1 answer an
index linking both and the reference page /api/docs.`
