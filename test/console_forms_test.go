package test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// The console renders a core.html web part's properties.html as HTML, so the
// API stores it sanitised; form scripts run in the runner page, which has its
// own CSP (eval allowed, no network, always sandboxed) and loads the runner.
func TestConsoleFormParts(t *testing.T) {
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "formparts")
		cfg := map[string]any{"view": map[string]any{"webParts": []any{map[string]any{
			"instanceId": "5b0f3e58-5e4e-4d8b-9d7e-2f1c8e1d7a10", "definitionKey": "core.html",
			"properties": map[string]any{"html": `<p onclick="x()">Hi<script>alert(1)</script></p>`, "note": 1},
		}}}}
		l := f.admin.Do(t, "PATCH", f.path(""), map[string]any{"formConfig": cfg}).Expect(t, 200).Map(t)
		b, _ := json.Marshal(l["form_config"])
		if !strings.Contains(string(b), `\u003cp\u003eHi\u003c/p\u003e`) && !strings.Contains(string(b), `<p>Hi</p>`) || strings.Contains(string(b), "script") || strings.Contains(string(b), "onclick") {
			t.Fatalf("core.html not sanitised: %s", b)
		}
		if !strings.Contains(string(b), `"note":1`) {
			t.Fatalf("other properties lost: %s", b)
		}
		bad := map[string]any{"new": map[string]any{"webParts": []any{map[string]any{
			"instanceId": "5b0f3e58-5e4e-4d8b-9d7e-2f1c8e1d7a11", "definitionKey": "core.html", "properties": map[string]any{"html": 5},
		}}}}
		f.admin.Do(t, "PATCH", f.path(""), map[string]any{"formConfig": bad}).Expect(t, 400, "VALIDATION_ERROR")

		resp, err := http.Get(s.URL + "/form-sandbox.html")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(csp, "sandbox allow-scripts") || !strings.Contains(csp, "connect-src 'none'") ||
			!strings.Contains(string(body), "/assets/form-runner-") {
			t.Fatalf("runner page: %d %q %s", resp.StatusCode, csp, body)
		}
	})
}
