package fault

import (
	"fmt"
	"testing"
)

func TestAsThroughWrapping(t *testing.T) {
	cases := []struct {
		name string
		err  error
		code Code
		ok   bool
	}{
		{"plain", Validation("login", "login is required"), CodeValidation, true},
		{"wrapped", fmt.Errorf("create user: %w", Conflict("login taken")), CodeConflict, true},
		{"foreign", fmt.Errorf("boom"), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fe, ok := As(c.err)
			if ok != c.ok {
				t.Fatalf("As ok=%v, want %v", ok, c.ok)
			}
			if ok && fe.Code != c.code {
				t.Fatalf("code %s, want %s", fe.Code, c.code)
			}
		})
	}
}

func TestValidationDetailsField(t *testing.T) {
	e := Validation("email", "bad email")
	if e.Details["field"] != "email" {
		t.Fatalf("details %v", e.Details)
	}
	w := e.With("extra", 1)
	if _, ok := e.Details["extra"]; ok {
		t.Fatal("With mutated the original")
	}
	if w.Details["field"] != "email" || w.Details["extra"] != 1 {
		t.Fatalf("With lost details: %v", w.Details)
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
		ok   bool
	}{
		{"  Отчёт  ", 5, "Отчёт", true},
		{"   ", 5, "", false},
		{"Отчёты", 5, "", false},
	}
	for _, c := range cases {
		got, err := RequiredText("title", c.in, c.max)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("RequiredText(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && (!Is(err, CodeValidation) || err.(*Error).Details["field"] != "title") {
			t.Errorf("error %v", err)
		}
	}
	if MaxText("description", "ééé", 3) != nil || MaxText("description", "éééé", 3) == nil {
		t.Error("MaxText counts characters, not bytes")
	}
}
