package web

import (
	"net/http"
	"strings"

	"github.com/rs/cors"
)

// CORS lets browser front ends on the listed origins (CORE_CORS_ORIGINS,
// exact scheme://host[:port]) call the API with credentials: preflights from
// them are answered, their answers carry Access-Control-Allow-Origin and
// -Credentials. Other origins get no CORS header, so browsers refuse them.
// With no origins it adds nothing at all.
func CORS(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		return func(next http.Handler) http.Handler { return next }
	}
	c := cors.New(cors.Options{
		AllowedOrigins:   origins,
		AllowCredentials: true,
		AllowedMethods:   []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowedHeaders: []string{"Authorization", "Content-Type", CSRFHeader, "Idempotency-Key", "If-Match", "If-None-Match",
			"Last-Event-ID", "X-Request-Id", "Accept-Language"},
		ExposedHeaders:       []string{"ETag", "Location", "Retry-After", "X-Request-Id", "Content-Disposition", "Content-Range"},
		MaxAge:               600,
		OptionsSuccessStatus: http.StatusNoContent,
	})
	return c.Handler
}

// OriginListed reports whether origin is one of origins (case-insensitive, exact).
func OriginListed(origins []string, origin string) bool {
	origin = strings.ToLower(strings.TrimRight(origin, "/"))
	for _, o := range origins {
		if o == origin {
			return true
		}
	}
	return false
}
