package web

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/applog"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// ErrorInfo is the `error` object of the envelope.
type ErrorInfo struct {
	Code    fault.Code     `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// APIError is an error response: the envelope with success=false.
type APIError struct {
	status  int
	headers http.Header // extra answer headers (WithHeader)
	Success bool        `json:"success"`
	Err     ErrorInfo   `json:"error"`
}

func (e *APIError) Error() string  { return e.Err.Message }
func (e *APIError) GetStatus() int { return e.status }

// GetHeaders (huma.HeadersError) gives a 429 whose details name
// retryAfterSeconds the matching Retry-After header (RFC 9110 10.2.3).
func (e *APIError) GetHeaders() http.Header {
	h := e.headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	if e.status != http.StatusTooManyRequests {
		return h
	}
	var secs int64
	switch v := e.Err.Details["retryAfterSeconds"].(type) {
	case int:
		secs = int64(v)
	case int64:
		secs = v
	case float64:
		secs = int64(math.Ceil(v))
	}
	if secs > 0 {
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	return h
}

var statusOf = map[fault.Code]int{
	fault.CodeValidation:   http.StatusBadRequest,
	fault.CodeUnauthorized: http.StatusUnauthorized,
	fault.CodeForbidden:    http.StatusForbidden,
	fault.CodeNotFound:     http.StatusNotFound,
	fault.CodeConflict:     http.StatusConflict,
	fault.CodeTooLarge:     http.StatusRequestEntityTooLarge,
	fault.CodeReadOnly:     http.StatusLocked,
	fault.CodeFileLocked:   http.StatusLocked,
	fault.CodeRateLimited:  http.StatusTooManyRequests,
	fault.CodeUnavailable:  http.StatusServiceUnavailable,
	fault.CodeUpdateBlock:  http.StatusConflict,
	fault.CodeInternal:     http.StatusInternalServerError,
}

var codeOf = map[int]fault.Code{
	http.StatusBadRequest:            fault.CodeValidation,
	http.StatusUnprocessableEntity:   fault.CodeValidation,
	http.StatusUnauthorized:          fault.CodeUnauthorized,
	http.StatusForbidden:             fault.CodeForbidden,
	http.StatusNotFound:              fault.CodeNotFound,
	http.StatusMethodNotAllowed:      fault.CodeNotFound,
	http.StatusConflict:              fault.CodeConflict,
	http.StatusRequestEntityTooLarge: fault.CodeTooLarge,
	http.StatusLocked:                fault.CodeReadOnly,
	http.StatusTooManyRequests:       fault.CodeRateLimited,
	http.StatusServiceUnavailable:    fault.CodeUnavailable,
}

// WithHeader answers err (as FromError does) with an extra header, e.g.
// WWW-Authenticate on a 401.
func WithHeader(ctx context.Context, err error, key, value string) error {
	ae := *FromError(ctx, err)
	ae.headers = ae.headers.Clone()
	if ae.headers == nil {
		ae.headers = http.Header{}
	}
	ae.headers.Set(key, value)
	return &ae
}

// FromError is the one place where errors become HTTP answers. Domain errors
// keep their code and message; anything else is logged with context and
// answered with a generic 500.
func FromError(ctx context.Context, err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	if fe, ok := fault.As(err); ok {
		st, ok := statusOf[fe.Code]
		if !ok {
			st = http.StatusInternalServerError
		}
		return &APIError{status: st, Err: ErrorInfo{Code: fe.Code, Message: fe.Message, Details: fe.Details}}
	}
	var be *BodyError
	if errors.As(err, &be) {
		st, msg := be.status()
		slog.InfoContext(ctx, "request body not read", "status", st, "err", be.Err)
		return &APIError{status: st, Err: ErrorInfo{Code: bodyCode(st), Message: msg}}
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		// The client went away (or the server is stopping): nobody reads
		// this answer, and it is not a failure of the service.
		slog.DebugContext(ctx, "request cancelled", "err", err) // AccessLog logs it once
		return &APIError{status: StatusClientClosed, Err: ErrorInfo{Code: fault.CodeUnavailable, Message: "request cancelled"}}
	}
	if store.IsInvalidInput(err) {
		slog.WarnContext(ctx, "invalid value reached the database", "err", err)
		return &APIError{status: http.StatusBadRequest, Err: ErrorInfo{Code: fault.CodeValidation, Message: "a value in the request is not valid for its field"}}
	}
	if store.IsUnavailable(err) || errors.Is(err, context.DeadlineExceeded) {
		// The store logs the outage once; a line per request would drown it.
		slog.DebugContext(ctx, "unavailable", "err", err)
		return &APIError{status: http.StatusServiceUnavailable, Err: ErrorInfo{Code: fault.CodeUnavailable,
			Message: "the service is temporarily unavailable (its database or another backend cannot be reached); try again shortly"}}
	}
	slog.ErrorContext(ctx, "internal error", "err", err)
	return internalError(ctx)
}

// StatusClientClosed is the status logged for a request whose client went
// away before the answer (nginx's 499); the client never sees it.
const StatusClientClosed = 499

func bodyCode(status int) fault.Code {
	if status == http.StatusRequestEntityTooLarge {
		return fault.CodeTooLarge
	}
	return fault.CodeValidation
}

func internalError(ctx context.Context) *APIError {
	msg := "internal error"
	if id := applog.Correlation(ctx); id != "" {
		msg += " (correlation id " + id + ")"
	}
	return &APIError{status: http.StatusInternalServerError, Err: ErrorInfo{Code: fault.CodeInternal, Message: msg}}
}

// newHumaError replaces huma.NewError so that Huma's own errors (validation,
// malformed JSON, body too large) use the envelope. Huma reports schema
// violations as 422; the contract wants 400 VALIDATION_ERROR.
func newHumaError(status int, msg string, errs ...error) huma.StatusError {
	if status == http.StatusUnprocessableEntity || status == http.StatusUnsupportedMediaType {
		status = http.StatusBadRequest
	}
	for _, e := range errs {
		var be *BodyError
		if errors.As(e, &be) {
			st, m := be.status()
			return &APIError{status: st, Err: ErrorInfo{Code: bodyCode(st), Message: m}}
		}
	}
	code, ok := codeOf[status]
	if !ok {
		if status >= 500 {
			for _, e := range errs {
				if e != nil {
					slog.Error("internal error", "err", e)
				}
			}
			return &APIError{status: http.StatusInternalServerError, Err: ErrorInfo{Code: fault.CodeInternal, Message: "internal error"}}
		}
		code = fault.CodeValidation
	}
	info := ErrorInfo{Code: code, Message: msg}
	var fields []map[string]string
	for _, e := range errs {
		var d *huma.ErrorDetail
		if !errors.As(e, &d) {
			continue
		}
		f := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(d.Location, "body."), "query."), "path."), "header.")
		m := d.Message
		if d.Location == "body" {
			// a decoding error of the body starts with its property path (DecodeError)
			f = ""
			if p, rest, ok := strings.Cut(m, ": "); ok && propertyPath.MatchString(p) {
				f, m = p, rest
			}
		}
		// Huma reports a missing property at the enclosing object's location.
		if rest, ok := strings.CutPrefix(m, "expected required property "); ok {
			name, _, _ := strings.Cut(rest, " ")
			if f != "" {
				name = f + "." + name
			}
			f = name
		}
		fields = append(fields, map[string]string{"field": f, "message": m})
	}
	if len(fields) > 0 {
		info.Details = map[string]any{"errors": fields}
		if fields[0]["field"] != "" {
			info.Details["field"] = fields[0]["field"]
		}
		if msg == "validation failed" || msg == "" {
			info.Message = fields[0]["message"]
			if fields[0]["field"] != "" {
				info.Message = fields[0]["field"] + ": " + info.Message
			}
		}
	}
	return &APIError{status: status, Err: info}
}

// propertyPath is the form of the property path that starts the message of
// a DecodeError ("a.b[2]").
var propertyPath = regexp.MustCompile(`^[^\s:()"]+$`)

func init() {
	// Huma exposes its error constructor as a package variable; setting it
	// once at start-up is the documented way to use a custom error model.
	huma.NewError = newHumaError
}

// WriteError writes err as an envelope outside Huma (plain net/http handlers).
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	ae := FromError(r.Context(), err)
	for k, v := range ae.GetHeaders() {
		w.Header()[k] = v
	}
	writeJSON(w, ae.status, ae)
}
