package test

import (
	"strings"
	"testing"

	"coreportal/test/kit"
)

// surveyNumbers: number answers are bounded to |v| <= 1e15 (finite); values
// beyond, also literals float64 cannot hold, are 400 naming the question, and
// the stats stay valid for later answers.
func surveyNumbers(t *testing.T, s *kit.Server, node string) {
	admin := s.Admin(t)
	def := map[string]any{"questions": []any{map[string]any{"id": "qty", "type": "number", "title": "Quantity"}}}
	id := mkSurvey(t, admin, node, "numbers", def, nil)["id"].(string)
	admin.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	users := make([]*kit.Client, 3)
	for i := range users {
		var uid string
		users[i], uid = s.CreateUser(t, "num"+string(rune('a'+i)), false)
		grant(t, s, "node", node, "user", uid, "view")
	}
	for _, raw := range []string{`1e308`, `-1e308`, `1e16`, `1000000000000001`, `"1e308"`, `1e400`, `-1e400`} {
		r := users[0].Do(t, "POST", "/surveys/"+id+"/submit", `{"answers":{"qty":{"value":`+raw+`}}}`).Expect(t, 400, "VALIDATION_ERROR")
		if f := r.Error.Details["field"]; f != "answers.qty" {
			t.Fatalf("value %s: field %v: %s", raw, f, r.Raw)
		}
		if msg := r.Error.Message; strings.Contains(msg, "json:") || !strings.Contains(msg, "Quantity") {
			t.Fatalf("value %s: message %q", raw, msg)
		}
	}
	submitSurvey(users[0], t, id, map[string]any{"qty": map[string]any{"value": 1e15}}).Expect(t, 201)
	submitSurvey(users[1], t, id, map[string]any{"qty": map[string]any{"value": -1e15}}).Expect(t, 201)
	submitSurvey(users[2], t, id, map[string]any{"qty": map[string]any{"value": 4}}).Expect(t, 201)
	st := admin.Do(t, "GET", "/surveys/"+id+"/stats", nil).Expect(t, 200).Map(t)
	n := st["questions"].([]any)[0].(map[string]any)["number"].(map[string]any)
	if n["min"] != -1e15 || n["max"] != 1e15 || n["median"] != 4.0 || n["mean"] != 4.0/3 {
		t.Fatalf("number stats %v", n)
	}
}

// surveyBadIDs: a survey id or export id that is not a UUID is 400 on every
// survey route, before any lookup.
func surveyBadIDs(t *testing.T, s *kit.Server, node string) {
	admin := s.Admin(t)
	id := mkSurvey(t, admin, node, "badids", map[string]any{"questions": []any{map[string]any{"id": "q", "type": "text", "title": "Q"}}}, nil)["id"].(string)
	for _, c := range []struct{ method, path, field string }{
		{"GET", "/surveys/zzz", "id"}, {"GET", "/surveys/zzz?take=true", "id"}, {"PATCH", "/surveys/zzz", "id"},
		{"DELETE", "/surveys/zzz", "id"}, {"POST", "/surveys/zzz/publish", "id"}, {"POST", "/surveys/zzz/close", "id"},
		{"POST", "/surveys/zzz/reopen", "id"}, {"POST", "/surveys/zzz/duplicate", "id"}, {"POST", "/surveys/zzz/submit", "id"},
		{"GET", "/surveys/zzz/stats", "id"}, {"GET", "/surveys/zzz/responses", "id"}, {"POST", "/surveys/zzz/export", "id"},
		{"GET", "/surveys/zzz/export/" + id, "id"}, {"GET", "/surveys/zzz/export/" + id + "/download", "id"},
		{"GET", "/surveys/" + id + "/export/zzz", "exportId"}, {"GET", "/surveys/" + id + "/export/zzz/download", "exportId"},
	} {
		var body any
		switch c.method {
		case "PATCH":
			body = map[string]any{"title": "T"}
		case "POST":
			body = map[string]any{"answers": map[string]any{}}
		}
		r := admin.Do(t, c.method, c.path, body).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != c.field {
			t.Fatalf("%s %s: details %v", c.method, c.path, r.Error.Details)
		}
	}
}

// surveyCountRights: the number of responses is a result: only callers with
// edit on the survey see answerCount (catalog and card); viewers get null.
func surveyCountRights(t *testing.T, node string, editor, reader *kit.Client) {
	id := mkSurvey(t, editor, node, "counted", map[string]any{"questions": []any{map[string]any{"id": "q", "type": "text", "title": "Q"}}}, nil)["id"].(string)
	editor.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	submitSurvey(reader, t, id, map[string]any{"q": map[string]any{"text": "hi"}}).Expect(t, 201)
	find := func(c *kit.Client) map[string]any {
		for _, it := range c.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 200).Map(t)["items"].([]any) {
			if m := it.(map[string]any); m["id"] == id {
				return m
			}
		}
		t.Fatalf("survey %s not in the catalog", id)
		return nil
	}
	if it := find(reader); it["answerCount"] != nil || it["hasAnswered"] != true {
		t.Fatalf("viewer catalog item %v", it)
	}
	if card := reader.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t); card["answerCount"] != nil {
		t.Fatalf("viewer card %v", card)
	}
	if it := find(editor); it["answerCount"] != 1.0 {
		t.Fatalf("editor catalog item %v", it)
	}
	if card := editor.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t); card["answerCount"] != 1.0 {
		t.Fatalf("editor card %v", card)
	}
}

// surveyNullDefinition: a survey always has a definition object: null is 400
// (create and update) and changes nothing; omitting it keeps the default.
func surveyNullDefinition(t *testing.T, node string, editor *kit.Client) {
	r := editor.Do(t, "POST", "/surveys", `{"nodeId":"`+node+`","slug":"nulldef","title":"Null","definition":null}`).Expect(t, 400, "VALIDATION_ERROR")
	if r.Error.Details["field"] != "definition" {
		t.Fatalf("null definition details %v", r.Error.Details)
	}
	sv := editor.Do(t, "POST", "/surveys", `{"nodeId":"`+node+`","slug":"nulldef","title":"Null"}`).Expect(t, 201).Map(t)
	if d := sv["definition"].(map[string]any); d["anonymous"] != false || len(d["questions"].([]any)) != 0 {
		t.Fatalf("default definition %v", d)
	}
	id := sv["id"].(string)
	editor.Do(t, "PATCH", "/surveys/"+id, `{"definition":{"questions":[{"id":"q","type":"text","title":"Q"}]}}`).Expect(t, 200)
	editor.Do(t, "PATCH", "/surveys/"+id, `{"title":"Changed","definition":null}`).Expect(t, 400, "VALIDATION_ERROR")
	got := editor.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t)
	if got["title"] != "Null" || len(got["definition"].(map[string]any)["questions"].([]any)) != 1 {
		t.Fatalf("after refused patch %v", got)
	}
}
