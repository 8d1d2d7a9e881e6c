package web

import (
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/danielgtaylor/huma/v2"
)

// tagOrder is the reading order of the reference: signing in first, then
// the content a user works with, then administration.
var tagOrder = []struct{ name, desc string }{
	{"auth", "Signing in and out, and the signed-in user."},
	{"nodes", "The site tree: nodes and their rights."},
	{"routes", "Resolving portal addresses to nodes and their content."},
	{"menu", "Navigation menus of nodes."},
	{"pages", "Pages of a node."},
	{"lists", "Lists: fields, views, items, versions, attachments and live changes."},
	{"libraries", "Document libraries: folders, files, versions and their fields."},
	{"surveys", "Surveys, responses, statistics and exports."},
	{"search", "Full-text search over what the caller may view."},
	{"permissions", "Rights: effective levels and their assignments."},
	{"users", "User picker, profiles, photos and the organisation chart."},
	{"groups", "Groups and their members."},
	{"recycle-bin", "Deleted content that can be restored."},
	{"events", "Event receivers: outgoing notifications of changes."},
	{"modules", "Installable modules and their packages."},
	{"mail", "Sending mail."},
	{"jobs", "Background jobs."},
	{"services", "Scheduled services and their runs."},
	{"admin-users", "Administration of local and directory users."},
	{"admin-directory", "Administration of the directory (LDAP) connection and synchronisation."},
	{"admin-mail", "Administration of outgoing mail."},
	{"admin-backups", "Backups, their settings, validation and restores."},
	{"admin-logs", "The application log."},
	{"admin-audit", "The audit log."},
	{"admin-dashboard", "The administration dashboard."},
	{"licence", "The licence and its activation."},
	{"release and update", "Versions and online updates."},
	{"internal: update runner", "Operations called by the update runner, not by clients."},
	{"system", "Service state."},
}

// errorStatuses lists every error status the envelope may carry, in order.
var errorStatuses = []int{
	http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound,
	http.StatusRequestTimeout, http.StatusConflict, http.StatusRequestEntityTooLarge,
	http.StatusRequestedRangeNotSatisfiable, http.StatusLocked, http.StatusTooManyRequests,
	http.StatusInternalServerError, http.StatusServiceUnavailable,
}

var errorText = map[int]string{
	http.StatusBadRequest:                   "VALIDATION_ERROR: malformed or invalid input; details.field names the field",
	http.StatusUnauthorized:                 "UNAUTHORIZED: no valid token (or it was signed out or expired)",
	http.StatusForbidden:                    "FORBIDDEN: the caller lacks the right or role the operation needs",
	http.StatusNotFound:                     "NOT_FOUND: the resource does not exist or is not visible to the caller",
	http.StatusRequestTimeout:               "VALIDATION_ERROR: the request body arrived slower than the minimum rate",
	http.StatusConflict:                     "CONFLICT: the request conflicts with the current state",
	http.StatusRequestEntityTooLarge:        "PAYLOAD_TOO_LARGE: the body is larger than the limit",
	http.StatusRequestedRangeNotSatisfiable: "the Range cannot be satisfied (it starts past the end)",
	http.StatusLocked:                       "LICENSE_READ_ONLY: the licence is not valid and the portal is read-only; FILE_LOCKED: the file is locked (WebDAV or Office editing) by another user, details.holder names them",
	http.StatusTooManyRequests:              "RATE_LIMITED: too many requests; Retry-After says when to try again",
	http.StatusInternalServerError:          "INTERNAL: an unexpected failure; the message carries a correlation id",
	http.StatusServiceUnavailable:           "UNAVAILABLE: the database or another backend cannot be reached; retry later",
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// documentOperation completes every operation added to the document, the
// Huma-registered ones and the plain net/http routes documented by hand
// alike: path parameters, security of public operations and the error
// answers the shared middleware and error mapping can give.
func documentOperation(oapi *huma.OpenAPI, op *huma.Operation) {
	addPathParams(op)
	addTags(oapi, op)
	if PolicyOf(op) == Public && op.Security == nil {
		op.Security = []map[string][]string{}
	}
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	delete(op.Responses, "default")
	delete(op.Responses, strconv.Itoa(http.StatusUnprocessableEntity)) // answered as 400
	shareSuccessContent(op)
	addDownloadAnswers(op)
	errSchema := errorSchema(oapi)
	for _, st := range errorStatuses {
		if !errorApplies(op, st) {
			continue
		}
		key := strconv.Itoa(st)
		if r := op.Responses[key]; r != nil && len(r.Content) > 0 {
			for _, mt := range r.Content {
				if mt != nil && mt.Schema == nil {
					mt.Schema = errSchema
				}
			}
			continue
		}
		desc := errorText[st]
		if r := op.Responses[key]; r != nil && r.Description != "" && r.Description != http.StatusText(st) {
			desc = r.Description
		}
		op.Responses[key] = &huma.Response{Description: desc,
			Content: map[string]*huma.MediaType{"application/json": {Schema: errSchema}}}
		if st == http.StatusRequestedRangeNotSatisfiable {
			// net/http's range handling answers in plain text
			op.Responses[key].Content["text/plain"] = &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString}}
		}
	}
	for key, r := range op.Responses {
		if r.Description == "" {
			st, _ := strconv.Atoi(key)
			r.Description = http.StatusText(st)
		}
	}
}

// addPathParams declares the {name} segments of the path that the
// operation does not declare itself (plain net/http routes).
func addPathParams(op *huma.Operation) {
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		name := m[1]
		if slices.ContainsFunc(op.Parameters, func(p *huma.Param) bool { return p.In == "path" && p.Name == name }) {
			continue
		}
		op.Parameters = append(op.Parameters, &huma.Param{Name: name, In: "path", Required: true,
			Description: paramDescription(name), Schema: &huma.Schema{Type: huma.TypeString}})
	}
}

func paramDescription(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' })
	if len(words) == 1 {
		w := words[0]
		if i := strings.LastIndexFunc(w, unicode.IsUpper); i > 0 {
			words = []string{w[:i], strings.ToLower(w[i:])}
		}
	}
	return "the " + strings.Join(words, " ")
}

// addDownloadAnswers documents conditional and ranged answers of GET
// operations: 304 to If-None-Match (every JSON answer carries a weak ETag,
// downloads their own) and, where the 200 answer is not JSON, 206 to a
// satisfiable Range (same media types). Event streams have neither.
func addDownloadAnswers(op *huma.Operation) {
	ok := op.Responses["200"]
	if op.Method != http.MethodGet || ok == nil || hasMedia(ok, "text/event-stream") {
		return
	}
	if op.Responses["304"] == nil {
		op.Responses["304"] = &huma.Response{Description: "Not Modified: the copy the client holds (If-None-Match) is current"}
	}
	if !isDownload(ok) {
		return
	}
	if op.Responses["206"] == nil {
		op.Responses["206"] = &huma.Response{Description: "Partial Content: the requested Range"}
	}
	if len(op.Responses["206"].Content) == 0 {
		op.Responses["206"].Content = ok.Content
	}
}

func isDownload(r *huma.Response) bool {
	if r == nil || len(r.Content) == 0 {
		return false
	}
	for ct := range r.Content {
		if ct == "application/json" {
			return false
		}
	}
	return true
}

func hasMedia(r *huma.Response, ct string) bool {
	if r == nil {
		return false
	}
	_, ok := r.Content[ct]
	return ok
}

// errorApplies is the rule for which error answers an operation can give.
func errorApplies(op *huma.Operation, st int) bool {
	write := op.Method != http.MethodGet && op.Method != http.MethodHead
	body := op.RequestBody != nil
	public := PolicyOf(op) == Public
	secured := len(op.Security) > 0
	switch st {
	case http.StatusBadRequest, http.StatusInternalServerError, http.StatusServiceUnavailable:
		return true // text checks of every path and query, the mapping of failures
	case http.StatusUnauthorized, http.StatusForbidden:
		return secured || op.Responses[strconv.Itoa(st)] != nil
	case http.StatusNotFound:
		// path parameters, and ids in queries and bodies, name resources
		return secured || strings.Contains(op.Path, "{") || op.Responses["404"] != nil
	case http.StatusRequestTimeout, http.StatusRequestEntityTooLarge:
		return body
	case http.StatusConflict:
		return (write && (secured || !public)) || op.Responses["409"] != nil
	case http.StatusLocked:
		// the licence gate refuses signed-in callers' writes but the recovery ones
		return write && !WriteExempt(op.Path)
	case http.StatusTooManyRequests:
		return (public && !secured && body) || hasMedia(op.Responses["200"], "text/event-stream") || op.Responses["429"] != nil
	case http.StatusRequestedRangeNotSatisfiable:
		return op.Responses["206"] != nil
	}
	return false
}

// errorSchema registers (once) and returns the schema of the error envelope.
func errorSchema(oapi *huma.OpenAPI) *huma.Schema {
	reg := oapi.Components.Schemas
	return reg.Schema(reflect.TypeFor[APIError](), true, "Error")
}

// SchemaName names component schemas after their Go types, generic
// arguments spelled out in words (Envelope[[]lists.Item] is
// EnvelopeListItem, Envelope[any] is EnvelopeAny).
func SchemaName(t reflect.Type, hint string) string {
	name := huma.DefaultSchemaNamer(t, hint)
	name = strings.ReplaceAll(name, "interface {}", "Any")
	name = strings.ReplaceAll(name, "Interface {}", "Any")
	var b strings.Builder
	up := false
	for _, r := range name {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if up {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
			continue
		}
		up = true
	}
	return b.String()
}

// addTags declares, after the known ones, tags that operations use and
// tagOrder does not list.
func addTags(oapi *huma.OpenAPI, op *huma.Operation) {
	for _, t := range op.Tags {
		if !slices.ContainsFunc(oapi.Tags, func(d *huma.Tag) bool { return d.Name == t }) {
			oapi.Tags = append(oapi.Tags, &huma.Tag{Name: t})
		}
	}
}

// documentTags lists the tags in reading order.
func documentTags() []*huma.Tag {
	tags := make([]*huma.Tag, 0, len(tagOrder))
	for _, t := range tagOrder {
		tags = append(tags, &huma.Tag{Name: t.name, Description: t.desc})
	}
	return tags
}

// Answers sets the status an operation answers on success (201 for a
// create, 202 for queued work) and documents the other success statuses it
// may give, with the same content.
func Answers(op huma.Operation, status int, also ...int) huma.Operation {
	op.DefaultStatus = status
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	for _, st := range also {
		op.Responses[strconv.Itoa(st)] = &huma.Response{Description: http.StatusText(st)}
	}
	return op
}

// shareSuccessContent gives success answers documented without content
// (by Answers) the content of the operation's default answer.
func shareSuccessContent(op *huma.Operation) {
	def := op.Responses[strconv.Itoa(op.DefaultStatus)]
	if def == nil || len(def.Content) == 0 {
		return
	}
	for key, r := range op.Responses {
		st, _ := strconv.Atoi(key)
		if st >= 200 && st < 300 && st != http.StatusNoContent && len(r.Content) == 0 {
			r.Content = def.Content
		}
	}
}
