package test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/webhooks"
	"coreportal/test/kit"
)

const hookSecret = "webhook-secret-0123456789"

// hookSink is a webhook receiver on 127.0.0.1 that checks signatures.
type hookSink struct {
	srv    *httptest.Server
	status int
	mu     sync.Mutex
	got    []hookHit
	notify chan struct{}
}

type hookHit struct {
	at       time.Time
	event    string
	delivery string
	attempt  string
	signed   bool
	body     map[string]any
	raw      string
}

func newHookSink(t *testing.T, status int) *hookSink {
	h := &hookSink{status: status, notify: make(chan struct{}, 1000)}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		hit := hookHit{at: time.Now(), event: r.Header.Get(webhooks.HeaderEvent), delivery: r.Header.Get(webhooks.HeaderDelivery),
			attempt: r.Header.Get(webhooks.HeaderAttempt), signed: webhooks.Verify(hookSecret, raw, r.Header.Get(webhooks.HeaderSignature)), raw: string(raw)}
		_ = json.Unmarshal(raw, &hit.body)
		h.mu.Lock()
		h.got = append(h.got, hit)
		h.mu.Unlock()
		h.notify <- struct{}{}
		w.WriteHeader(h.status)
		_, _ = io.WriteString(w, "answer-"+http.StatusText(h.status))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookSink) hits() []hookHit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookHit(nil), h.got...)
}

// wait returns the first hit of event arriving within d.
func (h *hookSink) wait(t *testing.T, event string, d time.Duration) hookHit {
	t.Helper()
	return h.waitFrom(t, event, 0, d)
}

// waitFrom is wait among the hits after the first from.
func (h *hookSink) waitFrom(t *testing.T, event string, from int, d time.Duration) hookHit {
	t.Helper()
	deadline := time.After(d)
	for {
		for _, x := range h.hits()[from:] {
			if x.event == event {
				return x
			}
		}
		select {
		case <-h.notify:
		case <-deadline:
			t.Fatalf("no delivery of %s within %s (got %d others)", event, d, len(h.hits()))
		}
	}
}

// hookCheck runs act and answers the body of the delivery of event that
// follows it (within 2 s, signed, first attempt).
type hookCheck func(event string, act func()) map[string]any

func (h *hookSink) checker(t *testing.T) hookCheck {
	return func(event string, act func()) map[string]any {
		t.Helper()
		from := len(h.hits())
		act()
		hit := h.waitFrom(t, event, from, 2*time.Second)
		if !hit.signed || hit.delivery == "" || hit.attempt != "1" || hit.body["event"] != event || hit.body["id"] != hit.delivery {
			t.Fatalf("%s: delivery %+v", event, hit)
		}
		return hit.body
	}
}

// hookTarget checks the resource a delivery names and that admin caused it.
func hookTarget(t *testing.T, body map[string]any, typ string, id, scope any) {
	t.Helper()
	res, _ := body["resource"].(map[string]any)
	actor, _ := body["actor"].(map[string]any)
	if res["type"] != typ || res["id"] != id || res["scopeId"] != scope || actor["login"] != "admin" {
		t.Fatalf("%s delivery names %v by %v, want %s %v in %v by admin", body["event"], res, actor, typ, id, scope)
	}
}

// restoreBinned restores the recycle-bin entry of kind and title on a node.
func restoreBinned(t *testing.T, c *kit.Client, nodeID, kind, title string) {
	t.Helper()
	for _, e := range binEntries(t, c, nodeID) {
		if e["kind"] == kind && e["title"] == title {
			c.Do(t, "POST", "/nodes/"+nodeID+"/recycle-bin/"+e["id"].(string)+"/restore", nil).Expect(t, 200)
			return
		}
	}
	t.Fatalf("no %s %q in the recycle bin of %s", kind, title, nodeID)
}

func addHook(t *testing.T, c *kit.Client, event, url string, extra map[string]any) map[string]any {
	t.Helper()
	cfg := map[string]any{"url": url, "secret": hookSecret}
	for k, v := range extra {
		cfg[k] = v
	}
	return c.Do(t, "POST", "/event-receivers", map[string]any{"eventName": event, "title": "Hook " + event, "serviceKey": "notifications",
		"jobType": "webhooks.post", "config": cfg}).Expect(t, 201).Map(t)
}

func TestWebhooksDeliverEveryEventKind(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		sink := newHookSink(t, 200)
		admin := s.Admin(t)
		events := []string{"listItem.created", "listItem.updated", "listItem.deleted", "listItem.restored",
			"file.created", "file.updated", "file.deleted", "file.restored", "page.created", "page.updated", "page.deleted", "page.restored",
			"survey.created", "survey.published", "survey.answered", "survey.closed", "survey.reopened", "survey.deleted", "survey.restored",
			"group.memberAdded", "group.memberRemoved"}
		for _, ev := range events {
			r := addHook(t, admin, ev, sink.srv.URL+"/hook?k=1", nil)
			cfg := r["config"].(map[string]any)
			if cfg["secret"] != "********" || cfg["hasSecret"] != true || strings.Contains(string(hookJSON(r)), hookSecret) {
				t.Fatalf("secret returned: %v", r)
			}
		}
		var all []map[string]any
		raw := admin.Do(t, "GET", "/event-receivers", nil).Expect(t, 200)
		raw.Into(t, &all)
		if len(all) != len(events) || strings.Contains(string(raw.Raw), hookSecret) {
			t.Fatalf("listing: %d receivers, or the secret leaked", len(all))
		}

		check := sink.checker(t)
		f := newListFixture(t, s, "hooks")
		var item map[string]any
		body := check("listItem.created", func() { item = f.create(t, admin, map[string]any{"title": "Budget"}) })
		res := body["resource"].(map[string]any)
		if res["type"] != "list_item" || res["id"] != item["guid"] || res["scopeId"] != f.listID || body["actor"].(map[string]any)["login"] != "admin" {
			t.Fatalf("item delivery: %v", body)
		}
		ref := f.pathf("/items/%v", item["id"])
		check("listItem.updated", func() {
			admin.Do(t, "PATCH", ref, map[string]any{"fieldValues": map[string]any{"title": "Budget 2"}}).Expect(t, 200)
		})
		check("listItem.deleted", func() { okay(admin.Do(t, "DELETE", ref, nil)).done(t) })
		body = check("listItem.restored", func() { restoreBinned(t, admin, f.nodeID, "list_item", "Budget 2") })
		hookTarget(t, body, "list_item", item["guid"], f.listID)
		if back := body["data"].(map[string]any)["item"].(map[string]any); back["id"] != item["id"] {
			t.Fatalf("restored item delivery: %v", body)
		}

		lib := newLibFixture(t, s, "hookdocs")
		checkFileHooks(t, check, lib, admin)

		var page map[string]any
		check("page.created", func() {
			page = admin.Do(t, "POST", "/pages", map[string]any{"nodeId": f.nodeID, "slug": "hello", "title": "Hello", "content": "<p>Hi</p>"}).Expect(t, 201).Map(t)
		})
		check("page.updated", func() {
			okay(admin.Do(t, "PATCH", "/pages/"+page["id"].(string), map[string]any{"title": "Hello 2"})).done(t)
		})
		check("page.deleted", func() { okay(admin.Do(t, "DELETE", "/pages/"+page["id"].(string), nil)).done(t) })
		body = check("page.restored", func() { restoreBinned(t, admin, f.nodeID, "page", "Hello 2") })
		hookTarget(t, body, "page", page["id"], f.nodeID)

		var sv map[string]any
		body = check("survey.created", func() {
			sv = mkSurvey(t, admin, f.nodeID, "poll", map[string]any{"questions": []any{map[string]any{"id": "q", "type": "text", "title": "Q"}}}, nil)
		})
		id := sv["id"].(string)
		hookTarget(t, body, "survey", id, f.nodeID)
		check("survey.published", func() { okay(admin.Do(t, "POST", "/surveys/"+id+"/publish", nil)).done(t) })
		ans := check("survey.answered", func() {
			okay(submitSurvey(admin, t, id, map[string]any{"q": map[string]any{"text": "secret answer"}})).done(t)
		})
		if strings.Contains(string(hookJSON(ans)), "secret answer") {
			t.Fatalf("answers travel: %v", ans)
		}
		check("survey.closed", func() { okay(admin.Do(t, "POST", "/surveys/"+id+"/close", nil)).done(t) })
		check("survey.reopened", func() { okay(admin.Do(t, "POST", "/surveys/"+id+"/reopen", nil)).done(t) })
		checkSurveyCopyHooks(t, check, admin, f.nodeID, id)

		_, bobID := s.CreateUser(t, "bob", false)
		g := admin.Do(t, "POST", "/groups", map[string]any{"name": "Hooked"}).Expect(t, 201).Map(t)
		gid := g["id"].(string)
		m := check("group.memberAdded", func() { okay(admin.Do(t, "POST", "/groups/"+gid+"/members", map[string]any{"userId": bobID})).done(t) })
		if d := m["data"].(map[string]any); d["groupId"] != gid || d["userIds"].([]any)[0] != bobID {
			t.Fatalf("membership delivery: %v", m)
		}
		check("group.memberRemoved", func() { okay(admin.Do(t, "DELETE", "/groups/"+gid+"/members/"+bobID, nil)).done(t) })

		// the log shows each delivery; a test delivery answers at once
		hookID := all[0]["id"].(string)
		var log []map[string]any
		for try := 0; try < 30 && len(log) == 0; try++ {
			admin.Do(t, "GET", "/event-receivers/"+hookID+"/deliveries", nil).Expect(t, 200).Into(t, &log)
			time.Sleep(100 * time.Millisecond)
		}
		if len(log) != 1 || log[0]["status"] != "succeeded" || log[0]["httpStatus"] != float64(200) || log[0]["answerExcerpt"] != "answer-OK" {
			t.Fatalf("log: %v", log)
		}
		tst := admin.Do(t, "POST", "/event-receivers/"+hookID+"/test", nil).Expect(t, 200).Map(t)
		if tst["status"] != "succeeded" || tst["eventName"] != "webhook.test" {
			t.Fatalf("test delivery: %v", tst)
		}
		if hit := sink.wait(t, "webhook.test", time.Second); !hit.signed {
			t.Fatalf("test delivery unsigned: %+v", hit)
		}
		user, _ := s.CreateUser(t, "eve", false)
		user.Do(t, "GET", "/event-receivers/"+hookID+"/deliveries", nil).Expect(t, 403, "FORBIDDEN")
		user.Do(t, "POST", "/event-receivers/"+hookID+"/test", nil).Expect(t, 403, "FORBIDDEN")

		// only 127.0.0.1 is allowed: other internal targets are refused
		for _, u := range []string{"http://127.0.0.2:9/x", "http://169.254.169.254/latest/meta-data", "http://localhost:9/x", "http://[::1]:9/x", "http://10.0.0.1/x"} {
			r := admin.Do(t, "POST", "/event-receivers", map[string]any{"eventName": "page.created", "title": "Bad", "serviceKey": "notifications",
				"jobType": "webhooks.post", "config": map[string]any{"url": u, "secret": hookSecret}}).Expect(t, 400, "VALIDATION_ERROR")
			if r.Error.Details["field"] != "config.url" {
				t.Fatalf("%s: %s", u, r.Raw)
			}
		}
		admin.Do(t, "POST", "/event-receivers", map[string]any{"eventName": "page.created", "title": "Short", "serviceKey": "notifications",
			"jobType": "webhooks.post", "config": map[string]any{"url": sink.srv.URL, "secret": "short"}}).Expect(t, 400, "VALIDATION_ERROR")
	}, "CORE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1")
}

// checkFileHooks: uploads, new versions, new folders, deletes and restores
// of a library's files reach webhook receivers.
func checkFileHooks(t *testing.T, check hookCheck, lib *libFixture, admin *kit.Client) {
	t.Helper()
	var file, dir map[string]any
	check("file.created", func() { file = lib.put(t, admin, "", "a.txt", []byte("one"), 201) })
	check("file.updated", func() { okay(lib.upload(t, admin, "", "a.txt", "", []byte("two"))).done(t) })
	check("file.deleted", func() { okay(admin.Do(t, "DELETE", lib.path("/files/%v", file["id"]), nil)).done(t) })
	body := check("file.restored", func() { restoreBinned(t, admin, lib.nodeID, "file", "a.txt") })
	hookTarget(t, body, "file", file["guid"], lib.libID)
	body = check("file.created", func() { dir = lib.folder(t, admin, nil, "Reports") })
	hookTarget(t, body, "file", dir["guid"], lib.libID)
	if d := body["data"].(map[string]any)["file"].(map[string]any); d["item_type"] != "folder" || d["name"] != "Reports" {
		t.Fatalf("folder delivery: %v", body)
	}
}

// checkSurveyCopyHooks: a duplicate is a created survey; its delete and
// restore reach webhook receivers.
func checkSurveyCopyHooks(t *testing.T, check hookCheck, admin *kit.Client, nodeID, id string) {
	t.Helper()
	var cp map[string]any
	body := check("survey.created", func() { cp = admin.Do(t, "POST", "/surveys/"+id+"/duplicate", nil).Expect(t, 201).Map(t) })
	hookTarget(t, body, "survey", cp["id"], nodeID)
	if d := body["data"].(map[string]any)["survey"].(map[string]any); d["status"] != "draft" || d["title"] != cp["title"] {
		t.Fatalf("duplicate delivery: %v", body)
	}
	body = check("survey.deleted", func() { okay(admin.Do(t, "DELETE", "/surveys/"+cp["id"].(string), nil)).done(t) })
	hookTarget(t, body, "survey", cp["id"], nodeID)
	body = check("survey.restored", func() { restoreBinned(t, admin, nodeID, "survey", cp["title"].(string)) })
	hookTarget(t, body, "survey", cp["id"], nodeID)
}

func hookJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestWebhooksRetryRefuseWithhold(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		// 127.0.0.1 is not allowed on this server (only the name localhost is)
		for _, u := range []string{"http://127.0.0.1:9/x", "http://169.254.169.254/latest/meta-data"} {
			admin.Do(t, "POST", "/event-receivers", map[string]any{"eventName": "listItem.created", "title": "Bad", "serviceKey": "notifications",
				"jobType": "webhooks.post", "config": map[string]any{"url": u, "secret": hookSecret}}).Expect(t, 400, "VALIDATION_ERROR")
		}
		failing := newHookSink(t, 500)
		port := failing.srv.URL[strings.LastIndex(failing.srv.URL, ":")+1:]
		f := newListFixture(t, s, "retry")
		hook := addHook(t, admin, "listItem.created", "http://localhost:"+port+"/fail", map[string]any{"listId": f.listID})

		// the receiver's creator loses the administrator role: nothing is sent to its receiver
		carol, carolID := s.CreateUser(t, "carol", true)
		quiet := newHookSink(t, 200)
		qport := quiet.srv.URL[strings.LastIndex(quiet.srv.URL, ":")+1:]
		withheld := addHook(t, carol, "listItem.created", "http://localhost:"+qport+"/quiet", map[string]any{"listId": f.listID})
		admin.Do(t, "PATCH", "/admin/users/"+carolID, map[string]any{"isCoreAdmin": false}).Expect(t, 200)

		began := time.Now()
		f.create(t, admin, map[string]any{"title": "Secret plan"})
		// attempts 1..4: backoff 1s doubles (1s, 2s, 4s)
		deadline := time.Now().Add(25 * time.Second)
		for len(failing.hits()) < 4 && time.Now().Before(deadline) {
			select {
			case <-failing.notify:
			case <-time.After(time.Second):
			}
		}
		hits := failing.hits()
		if len(hits) < 4 {
			t.Fatalf("%d attempts after %s, want 4", len(hits), time.Since(began))
		}
		if hits[0].at.Sub(began) > 2*time.Second {
			t.Fatalf("first attempt after %s", hits[0].at.Sub(began))
		}
		var gaps []time.Duration
		for i := 1; i < 4; i++ {
			if hits[i].delivery != hits[0].delivery || hits[i].attempt != string(rune('1'+i)) || !hits[i].signed {
				t.Fatalf("attempt %d: %+v", i+1, hits[i])
			}
			gaps = append(gaps, hits[i].at.Sub(hits[i-1].at))
		}
		// each retry waits at least its doubled delay; the queue's polling
		// may add to any of them, so only the lower bounds are compared
		for i, least := range []time.Duration{900 * time.Millisecond, 1800 * time.Millisecond, 3600 * time.Millisecond} {
			if gaps[i] < least {
				t.Fatalf("gaps do not grow: %v (retry %d came after %s, want at least %s)", gaps, i+2, gaps[i], least)
			}
		}
		// the attempt is logged just after the receiver answered
		var log []map[string]any
		for try := 0; try < 30; try++ {
			admin.Do(t, "GET", "/event-receivers/"+hook["id"].(string)+"/deliveries?limit=10", nil).Expect(t, 200).Into(t, &log)
			if len(log) >= 4 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(log) < 4 {
			t.Fatalf("log: %v", log)
		}
		for _, row := range log[len(log)-4:] {
			if row["status"] != "retrying" || row["httpStatus"] != float64(500) || row["nextRetryAt"] == nil || row["answerExcerpt"] != "answer-Internal Server Error" {
				t.Fatalf("log row: %v", row)
			}
		}
		if log[len(log)-1]["attempt"] != float64(1) || log[len(log)-4]["attempt"] != float64(4) {
			t.Fatalf("log order: %v", log)
		}
		var wl []map[string]any
		for try := 0; try < 30 && len(wl) == 0; try++ {
			admin.Do(t, "GET", "/event-receivers/"+withheld["id"].(string)+"/deliveries", nil).Expect(t, 200).Into(t, &wl)
			time.Sleep(100 * time.Millisecond)
		}
		if len(wl) != 1 || wl[0]["status"] != "withheld" {
			t.Fatalf("withheld log: %v", wl)
		}
		if n := len(quiet.hits()); n != 0 {
			t.Fatalf("the creator cannot view the item, yet %d deliveries arrived: %v", n, quiet.hits())
		}
		tst := admin.Do(t, "POST", "/event-receivers/"+hook["id"].(string)+"/test", nil).Expect(t, 200).Map(t)
		if tst["status"] != "failed" || tst["httpStatus"] != float64(500) {
			t.Fatalf("test delivery to a failing receiver: %v", tst)
		}
	}, "CORE_WEBHOOK_ALLOWED_HOSTS=localhost", "CORE_WEBHOOK_BACKOFF=1s")
}

type okayResp struct{ r *kit.Response }

func okay(r *kit.Response) okayResp { return okayResp{r} }

func (o okayResp) done(t *testing.T) {
	t.Helper()
	if o.r.Status >= 300 {
		t.Fatalf("status %d: %s", o.r.Status, o.r.Raw)
	}
}
