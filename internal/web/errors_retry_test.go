package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"coreportal/internal/fault"
)

func TestRetryAfterHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"429 with seconds", fault.New(fault.CodeRateLimited, "slow down").With("retryAfterSeconds", 7), "7"},
		{"429 with float seconds rounds up", fault.New(fault.CodeRateLimited, "slow down").With("retryAfterSeconds", 2.1), "3"},
		{"429 without seconds", fault.New(fault.CodeRateLimited, "too many streams"), ""},
		{"other status", fault.New(fault.CodeConflict, "x").With("retryAfterSeconds", 7), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := FromError(context.Background(), c.err).GetHeaders().Get("Retry-After"); got != c.want {
				t.Fatalf("GetHeaders Retry-After %q, want %q", got, c.want)
			}
			w := httptest.NewRecorder()
			WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), c.err)
			if got := w.Header().Get("Retry-After"); got != c.want {
				t.Fatalf("WriteError Retry-After %q, want %q", got, c.want)
			}
		})
	}
}
