package applog

import (
	"strings"
	"testing"
)

func TestRedactText(t *testing.T) {
	cases := []struct{ in, want, gone string }{
		{"Authorization: Bearer abcdefghijklmnop.qrs", Masked, "abcdefghijklmnop"},
		{"sent Bearer abcdefghijklmnop.qrs", "Bearer " + Masked, "abcdefghijklmnop"},
		{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlX2hlcmU", Masked, "eyJhbGci"},
		{"login failed password=hunter22 for x", "password=" + Masked, "hunter22"},
		{`bindPassword: "s3cret value"`, "bindPassword: " + Masked, "s3cret"},
		{"Cookie: core_token=abc.def.ghi", Masked, "abc.def"},
		{"mail to jane.doe@example.com failed", "j***@example.com", "jane.doe"},
		{"nothing secret here", "nothing secret here", "@"},
	}
	for _, c := range cases {
		got := RedactText(c.in)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.gone) {
			t.Errorf("RedactText(%q) = %q; want it to contain %q and not %q", c.in, got, c.want, c.gone)
		}
	}
}

func TestRedactValue(t *testing.T) {
	v := RedactValue(map[string]any{"password": "x", "hasPassword": true, "nested": map[string]any{"accessToken": "y", "to": "a.b@corp.example"}, "list": []any{"Bearer 123456789abc"}}).(map[string]any)
	if v["password"] != Masked || v["hasPassword"] != true {
		t.Fatalf("%v", v)
	}
	n := v["nested"].(map[string]any)
	if n["accessToken"] != Masked || n["to"] != "a***@corp.example" {
		t.Fatalf("%v", n)
	}
	if v["list"].([]any)[0] != "Bearer "+Masked {
		t.Fatalf("%v", v["list"])
	}
	s := StripSecrets(map[string]any{"bindPassword": "p", "email": "keep@corp.example"}).(map[string]any)
	if s["bindPassword"] != Masked || s["email"] != "keep@corp.example" {
		t.Fatalf("%v", s)
	}
}
