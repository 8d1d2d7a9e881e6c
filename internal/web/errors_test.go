package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"coreportal/internal/fault"
)

func TestFromError(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		code   fault.Code
	}{
		{"validation", fault.Validation("x", "bad"), 400, fault.CodeValidation},
		{"wrapped conflict", fmt.Errorf("save: %w", fault.Conflict("dup")), 409, fault.CodeConflict},
		{"not found", fault.NotFound("user"), 404, fault.CodeNotFound},
		{"read only", fault.New(fault.CodeReadOnly, "ro"), 423, fault.CodeReadOnly},
		{"update blocked", fault.New(fault.CodeUpdateBlock, "no"), 409, fault.CodeUpdateBlock},
		{"internal hides text", errors.New("pq: password=secret"), 500, fault.CodeInternal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ae := FromError(context.Background(), c.err)
			if ae.GetStatus() != c.status || ae.Err.Code != c.code {
				t.Fatalf("got %d %s", ae.GetStatus(), ae.Err.Code)
			}
			if c.code == fault.CodeInternal && ae.Err.Message != "internal error" {
				t.Fatalf("internal message leaks: %q", ae.Err.Message)
			}
		})
	}
}

func TestHumaErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		detail *huma.ErrorDetail
		want   int
		code   fault.Code
		field  string
	}{
		{"schema violation becomes 400", 422, &huma.ErrorDetail{Location: "body.email", Message: "expected string"}, 400, fault.CodeValidation, "email"},
		{"missing property", 422, &huma.ErrorDetail{Location: "body", Message: "expected required property password to be present"}, 400, fault.CodeValidation, "password"},
		{"nested missing property", 422, &huma.ErrorDetail{Location: "body.settings", Message: "expected required property choices to be present"}, 400, fault.CodeValidation, "settings.choices"},
		{"query", 422, &huma.ErrorDetail{Location: "query.limit", Message: "expected number >= 1"}, 400, fault.CodeValidation, "limit"},
		{"too large", http.StatusRequestEntityTooLarge, nil, 413, fault.CodeTooLarge, ""},
		{"server error", 500, nil, 500, fault.CodeInternal, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs []error
			if c.detail != nil {
				errs = append(errs, c.detail)
			}
			ae := huma.NewError(c.status, "validation failed", errs...).(*APIError)
			if ae.GetStatus() != c.want || ae.Err.Code != c.code {
				t.Fatalf("got %d %s", ae.GetStatus(), ae.Err.Code)
			}
			if c.field != "" && ae.Err.Details["field"] != c.field {
				t.Fatalf("details %v", ae.Err.Details)
			}
		})
	}
}

func TestPageMeta(t *testing.T) {
	cases := []struct{ page, limit, total, pages int }{{1, 50, 0, 0}, {1, 50, 50, 1}, {2, 50, 51, 2}, {1, 1, 7, 7}}
	for _, c := range cases {
		m := NewPageMeta(PageQuery{Page: c.page, Limit: c.limit}, c.total)
		if m.TotalPages != c.pages {
			t.Errorf("%+v: pages %d", c, m.TotalPages)
		}
	}
	if (PageQuery{Page: 3, Limit: 20}).Offset() != 40 {
		t.Fatal("offset")
	}
}
