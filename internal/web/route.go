package web

import (
	"context"
	"net/http"
	"strings"
	"time"
)

type routeKey struct{}

// routeHolder receives the ServeMux pattern that served a request.
type routeHolder struct{ pattern string }

// RouteObserver is told about every finished request with its route
// template (the ServeMux pattern such as "GET /api/v1/lists/{id}", never the
// raw path; "unmatched" for unknown routes), method, status and duration.
type RouteObserver func(route, method string, status int, elapsed time.Duration)

// ObserveRoutes reports finished requests to every observer. Wrap the mux
// itself with CaptureRoute so that the route template is known.
func ObserveRoutes(observers ...RouteObserver) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			h := &routeHolder{}
			rec := &StatusRecorder{ResponseWriter: w}
			defer func() {
				status := rec.Status
				if status == 0 {
					status = http.StatusOK
				}
				route := h.pattern
				if route == "" || route == "/" {
					route = "unmatched"
				}
				for _, o := range observers {
					o(route, r.Method, status, time.Since(start))
				}
			}()
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey{}, h)))
		})
	}
}

// RouteTemplate is the route template of the request so far: the ServeMux
// pattern without its method ("/api/v1/lists/{id}/items"), "unmatched" when
// no route matched or ObserveRoutes does not wrap the request. It is known
// once the mux has returned.
func RouteTemplate(ctx context.Context) string {
	h, ok := ctx.Value(routeKey{}).(*routeHolder)
	if !ok || h.pattern == "" || h.pattern == "/" {
		return "unmatched"
	}
	p := h.pattern
	if i := strings.IndexByte(p, ' '); i >= 0 {
		p = strings.TrimLeft(p[i+1:], " ")
	}
	if p == "" || p == "/" {
		return "unmatched"
	}
	return p
}

// CaptureRoute wraps the mux: ServeMux records the matched pattern on the
// request it was given, which the outer middlewares never see.
func CaptureRoute(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if h, ok := r.Context().Value(routeKey{}).(*routeHolder); ok {
			h.pattern = r.Pattern
		}
	})
}
