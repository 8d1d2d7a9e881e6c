package test

import (
	"encoding/csv"
	"net/mail"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"

	"coreportal/internal/mail/mailtest"
	"coreportal/test/kit"
)

// TestSmallHardening covers the smaller hardening rules on one server per
// backend: exports write no raw line break, mail header values refuse
// control characters, sanitised HTML keeps no id or name, and routes answer
// for a resource as its own GET does.
func TestSmallHardening(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		adm := s.Admin(t)
		t.Run("export-breaks", func(t *testing.T) { testExportBreaks(t, s, adm) })
		t.Run("mail-headers", func(t *testing.T) { testMailHeaders(t, adm) })
		t.Run("html-names", func(t *testing.T) { testHTMLNames(t, s, adm) })
		t.Run("routes-as-get", func(t *testing.T) { testRoutesAsGet(t, s, adm) })
	})
}

// breaks reports the characters that some viewer reads as a line break or
// that are control characters.
func breaks(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// testExportBreaks: a sign-in name carrying NEL, LS, PS, VT, FF, CR and C1
// controls does not forge a line in the text export of the application log
// nor in a cell of the audit CSV export.
func testExportBreaks(t *testing.T, s *kit.Server, adm *kit.Client) {
	login := "intruder\u0085" + "2026-01-01T00:00:00Z ERROR [api/app] forged\u2028ls\u2029ps\vvt\fff\rcr\u009bcsi\\end"
	failSignIn(t, s, login, "req-forged-break")
	waitLogs(t, adm, "?correlationId=req-forged-break", 1)
	r := adm.Do(t, "GET", "/admin/logs/export?format=txt&correlationId=req-forged-break", nil)
	body := strings.TrimSuffix(string(r.Raw), "\n")
	if r.Status != 200 || strings.ContainsFunc(body, breaks) || !strings.Contains(body, "correlationId=req-forged-break") {
		t.Fatalf("txt export writes a raw break or control character: %q", r.Raw)
	}
	for _, esc := range []string{`\u0085`, `\u2028`, `\u2029`, `\u000b`, `\u009b`} {
		if !strings.Contains(body, esc) {
			t.Fatalf("txt export lacks the escape %s: %q", esc, body)
		}
	}
	r = adm.Do(t, "GET", "/admin/audit/export?format=csv&action=auth.sign_in_failed", nil)
	recs, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
	if r.Status != 200 || err != nil || len(recs) < 2 {
		t.Fatalf("audit csv %v: %q", err, r.Raw)
	}
	found := false
	for _, rec := range recs[1:] {
		for _, cell := range rec {
			if strings.ContainsFunc(cell, breaks) {
				t.Fatalf("audit csv cell with a raw break or control character: %q", cell)
			}
			found = found || strings.HasPrefix(cell, `intruder\u0085`) && strings.Contains(cell, `\u2028ls\u2029ps\u000bvt`)
		}
	}
	if !found {
		t.Fatalf("escaped login not in the audit csv: %q", recs)
	}
}

// expectField fails unless r is 400 VALIDATION_ERROR naming field.
func expectField(t *testing.T, r *kit.Response, field string) {
	t.Helper()
	r.Expect(t, 400, "VALIDATION_ERROR")
	if r.Error.Details["field"] != field {
		t.Fatalf("details.field %v, want %s: %s", r.Error.Details["field"], field, r.Raw)
	}
}

// testMailHeaders: values that go into mail headers or SMTP commands refuse
// control characters and line separators (a fromName with CR/LF made every
// send fail), and a sender name with quotes and a backslash still sends.
func testMailHeaders(t *testing.T, adm *kit.Client) {
	smtp := mailtest.StartT(t, mailtest.Options{})
	base := map[string]any{"host": smtp.Host, "port": smtp.Port, "fromEmail": "portal@example.com", "fromName": "Core Portal"}
	for _, brk := range []string{"\r\n", "\n", "\u0085", "\u2028", "\t"} {
		for field, v := range map[string]string{"fromName": "Core Portal" + brk + "Bcc: victim@example.com", "fromEmail": "portal" + brk + "@example.com",
			"replyTo": "reply@example.com" + brk + "Bcc: victim@example.com", "user": "mail" + brk + "er", "host": "smtp" + brk + ".example.com"} {
			body := map[string]any{}
			for k, bv := range base {
				body[k] = bv
			}
			body[field] = v
			expectField(t, adm.Do(t, "PUT", "/admin/settings/smtp", body), field)
		}
	}
	name := `Core "Portal" \ IT, Département`
	body := map[string]any{"fromName": name}
	for k, v := range base {
		if k != "fromName" {
			body[k] = v
		}
	}
	adm.Do(t, "PUT", "/admin/settings/smtp", body).Expect(t, 200)
	adm.Do(t, "POST", "/admin/settings/smtp/test", map[string]any{"to": "ops@example.com"}).Expect(t, 200)
	got := smtp.Wait(t, 5*time.Second, mailtest.Contains("Core Portal test message"))
	msg, err := mail.ReadMessage(strings.NewReader(got.Data))
	if err != nil {
		t.Fatalf("read mail: %v", err)
	}
	if from, err := msg.Header.AddressList("From"); err != nil || len(from) != 1 || from[0].Name != name {
		t.Fatalf("From %q: %v %v", msg.Header.Get("From"), from, err)
	}
	expectField(t, adm.Do(t, "POST", "/mail/send", map[string]any{"to": "a@example.com", "subject": "hi\r\nBcc: victim@example.com", "text": "x"}), "subject")
	receiver := map[string]any{"eventName": "listItem.updated", "title": "Mail on change", "serviceKey": "notifications",
		"jobType": "notifications.sendEventEmail", "config": map[string]any{"to": "watch@example.com",
			"subject": "[{{eventName}}]\r\nBcc: victim@example.com", "text": "{{details}}"}}
	expectField(t, adm.Do(t, "POST", "/event-receivers", receiver), "config.subject")
	receiver["config"].(map[string]any)["to"] = "watch@example.com\r\nBcc: victim@example.com"
	receiver["config"].(map[string]any)["subject"] = "[{{eventName}}]"
	expectField(t, adm.Do(t, "POST", "/event-receivers", receiver), "config.to")
}

// testHTMLNames: page content and html_text values keep no id, name or
// usemap attribute (DOM clobbering), and the rest of the markup stays.
func testHTMLNames(t *testing.T, s *kit.Server, adm *kit.Client) {
	html := `<h2 id="config">Title</h2><a href="#config" name="defaultView">back</a><img src="/a.png" name="cookie" usemap="#m" alt="a">` +
		`<map name="m"><area href="/x" alt="x" coords="1,2,3,4" shape="rect"></map><p id="__proto__" title="t">text</p>`
	clean := func(what, got string) {
		t.Helper()
		for _, attr := range []string{" id=", " name=", " usemap="} {
			if strings.Contains(got, attr) {
				t.Fatalf("%s keeps%s: %q", what, attr, got)
			}
		}
		for _, keep := range []string{"<h2>Title</h2>", `href="#config"`, `alt="a"`, `title="t"`} {
			if !strings.Contains(got, keep) {
				t.Fatalf("%s lost %s: %q", what, keep, got)
			}
		}
	}
	node := mkNode(t, adm, "", "html-names")
	pg := adm.Do(t, "POST", "/pages", map[string]any{"nodeId": node, "slug": "clobber", "title": "Clobber", "content": html}).Expect(t, 201).Map(t)
	clean("page content", pg["content"].(string))
	clean("stored page content", adm.Do(t, "GET", "/pages/"+pg["id"].(string), nil).Expect(t, 200).Map(t)["content"].(string))
	f := newListFixture(t, s, "html-names")
	f.addField(t, "body", "html_text", nil)
	it := f.create(t, adm, map[string]any{f.fields["title"]: "x", f.fields["body"]: html})
	clean("html_text value", f.value(it, "body").(string))
}

// testRoutesAsGet: /routes/resolve, /routes/canonical and /routes/legacy
// answer for a list, library, page or survey as its own GET answers for the
// caller, and name no id the GET would not give (a draft survey needs edit,
// view on it is not enough).
func testRoutesAsGet(t *testing.T, s *kit.Server, adm *kit.Client) {
	viewer, viewerID := s.CreateUser(t, "route-viewer", false)
	node := mkNode(t, adm, "", "route-kinds")
	grant(t, s, "node", node, "user", viewerID, "view")
	ids := map[string]string{
		"lists":     adm.Do(t, "POST", "/lists", map[string]any{"nodeId": node, "title": "L", "slug": "l"}).Expect(t, 201).Map(t)["id"].(string),
		"libraries": adm.Do(t, "POST", "/libraries", map[string]any{"nodeId": node, "title": "D", "slug": "d"}).Expect(t, 201).Map(t)["id"].(string),
		"pages":     adm.Do(t, "POST", "/pages", map[string]any{"nodeId": node, "title": "P", "slug": "p", "content": "<p>x</p>"}).Expect(t, 201).Map(t)["id"].(string),
	}
	draft := mkSurvey(t, adm, node, "draft", surveyDef(false), nil)["id"].(string)
	open := mkSurvey(t, adm, node, "open", surveyDef(false), nil)["id"].(string)
	adm.Do(t, "POST", "/surveys/"+open+"/publish", nil).Expect(t, 200)
	check := func(what, path, id string, get *kit.Response) {
		t.Helper()
		r := viewer.Do(t, "GET", path, nil)
		if r.Status != get.Status || r.Error.Code != get.Error.Code {
			t.Fatalf("%s: %d %s, GET of the resource answers %d %s: %s", what, r.Status, r.Error.Code, get.Status, get.Error.Code, r.Raw)
		}
		if get.Status != 200 && strings.Contains(string(r.Raw), id) {
			t.Fatalf("%s names the id the GET hides: %s", what, r.Raw)
		}
	}
	for word, id := range ids {
		get := viewer.Do(t, "GET", "/"+word+"/"+id, nil)
		slug := map[string]string{"lists": "l", "libraries": "d", "pages": "p"}[word]
		check(word, "/routes/resolve?path="+url.QueryEscape("/route-kinds/"+word+"/"+slug), id, get)
	}
	for slug, id := range map[string]string{"draft": draft, "open": open} {
		get := viewer.Do(t, "GET", "/surveys/"+id, nil)
		if want := map[string]int{"draft": 403, "open": 200}[slug]; get.Status != want {
			t.Fatalf("GET /surveys/%s (%s) as viewer: %d, want %d", id, slug, get.Status, want)
		}
		for _, suffix := range []string{"", "/edit", "/results", "/take"} {
			check("survey "+slug+suffix, "/routes/resolve?path="+url.QueryEscape("/route-kinds/surveys/"+slug+suffix), id, get)
		}
		check("canonical survey "+slug, "/routes/canonical?type=survey&resourceId="+id, id, get)
		check("legacy survey "+slug, "/routes/legacy?path="+url.QueryEscape("#/nodes/"+node+"/surveys/"+id), id, get)
	}
}
