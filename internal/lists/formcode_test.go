package lists

import (
	"encoding/json"
	"testing"

	"coreportal/internal/fault"
)

func TestFormCodeChange(t *testing.T) {
	norm := func(s string) json.RawMessage {
		t.Helper()
		fc, err := checkFormConfig(json.RawMessage(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return fc
	}
	const wp = `{"instanceId":"6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10","definitionKey":"vendor.chart","properties":{"a":1,"b":[2]}}`
	stored := norm(`{"new":{"script":"x()"},"view":{"webParts":[` + wp + `]}}`)
	cases := []struct {
		name, next string
		ok         bool
	}{
		{"same", `{"new":{"script":"x()"},"view":{"webParts":[` + wp + `]}}`, true},
		{"showStandardForm only", `{"new":{"script":"x()","showStandardForm":false},"view":{"webParts":[` + wp + `],"showStandardForm":false}}`, true},
		{"properties reordered and spaced", `{"view":{"webParts":[{"properties":{ "b":[2], "a":1 },"definitionKey":"vendor.chart","instanceId":"6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10","placement":"after"}]},"new":{"script":"x()"}}`, true},
		{"script changed", `{"new":{"script":"y()"},"view":{"webParts":[` + wp + `]}}`, false},
		{"script removed", `{"view":{"webParts":[` + wp + `]}}`, false},
		{"script moved to another form", `{"edit":{"script":"x()"},"view":{"webParts":[` + wp + `]}}`, false},
		{"web part removed", `{"new":{"script":"x()"}}`, false},
		{"web part property changed", `{"new":{"script":"x()"},"view":{"webParts":[{"instanceId":"6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10","definitionKey":"vendor.chart","properties":{"a":2,"b":[2]}}]}}`, false},
		{"web part placement changed", `{"new":{"script":"x()"},"view":{"webParts":[{"instanceId":"6f1c1c1e-7c55-4d1f-9d7e-0a3c5c1f2a10","definitionKey":"vendor.chart","properties":{"a":1,"b":[2]},"placement":"before"}]}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkFormCodeChange(false, stored, norm(c.next))
			if (err == nil) != c.ok {
				t.Fatalf("err=%v", err)
			}
			if err != nil && !fault.Is(err, fault.CodeForbidden) {
				t.Fatalf("not 403: %v", err)
			}
			if err := checkFormCodeChange(true, stored, norm(c.next)); err != nil {
				t.Fatalf("administrator refused: %v", err)
			}
		})
	}
	t.Run("empty script and empty web parts count as none", func(t *testing.T) {
		if err := checkFormCodeChange(false, json.RawMessage("{}"), norm(`{"new":{"script":"","webParts":[],"showStandardForm":false}}`)); err != nil {
			t.Fatal(err)
		}
		if err := checkFormCodeChange(false, json.RawMessage("{}"), norm(`{"new":{"script":" "}}`)); err == nil {
			t.Fatal("a white-space script passed as none")
		}
	})
}
