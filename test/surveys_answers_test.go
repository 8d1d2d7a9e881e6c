package test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"coreportal/test/kit"
)

func surveyMenuRoutesBin(t *testing.T, admin, reader *kit.Client, node string) {
	sv := mkSurvey(t, admin, node, "feedback", map[string]any{"questions": []any{map[string]any{"id": "q", "type": "text", "title": "Q"}}},
		map[string]any{"addToSideMenu": true})
	id := sv["id"].(string)
	admin.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	menuItem := func() map[string]any {
		t.Helper()
		var found map[string]any
		for _, it := range reader.Do(t, "GET", "/nodes/"+node+"/menu", nil).Expect(t, 200).Map(t)["items"].([]any) {
			m := it.(map[string]any)
			if m["resourceId"] == id {
				if found != nil {
					t.Fatalf("two menu items for the survey")
				}
				found = m
			}
		}
		return found
	}
	if m := menuItem(); m == nil || m["title"] != "Survey feedback" || m["link"] != "/polls/surveys/feedback" || m["resourceType"] != "survey" {
		t.Fatalf("menu item after create %v", m)
	}
	admin.Do(t, "PATCH", "/surveys/"+id, map[string]any{"title": "Feedback 2026", "slug": "fb"}).Expect(t, 200)
	if m := menuItem(); m == nil || m["title"] != "Feedback 2026" || m["link"] != "/polls/surveys/fb" {
		t.Fatalf("menu item after rename %v", m)
	}

	resolve := func(c *kit.Client, path string, status int) map[string]any {
		t.Helper()
		r := c.Do(t, "GET", "/routes/resolve?path="+url.QueryEscape(path), nil).Expect(t, status)
		if status != 200 {
			return nil
		}
		return r.Map(t)
	}
	for path, typ := range map[string]string{"/polls/surveys": "surveys", "/polls/surveys/new": "survey_new", "/polls/surveys/fb": "survey",
		"/polls/surveys/fb/edit": "survey_edit", "/polls/surveys/fb/results": "survey_results", "/polls/surveys/fb/take": "survey_take"} {
		r := resolve(reader, path, 200)
		if r["type"] != typ || r["nodeId"] != node || r["path"] != path {
			t.Fatalf("resolve %s: %v", path, r)
		}
		if typ != "surveys" && typ != "survey_new" && r["surveyId"] != id {
			t.Fatalf("resolve %s: surveyId %v", path, r)
		}
	}
	resolve(reader, "/polls/surveys/feedback", 404)
	c := admin.Do(t, "GET", "/routes/canonical?type=survey&resourceId="+id, nil).Expect(t, 200).Map(t)
	if c["path"] != "/polls/surveys/fb" || c["surveyId"] != id {
		t.Fatalf("canonical %v", c)
	}

	// delete: into the node's recycle bin, menu item and route gone; restore brings both back
	admin.Do(t, "DELETE", "/surveys/"+id, nil).Expect(t, 200)
	admin.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 404, "NOT_FOUND")
	resolve(admin, "/polls/surveys/fb", 404)
	if m := menuItem(); m != nil {
		t.Fatalf("menu item of a deleted survey %v", m)
	}
	var bin []map[string]any
	admin.Do(t, "GET", "/nodes/"+node+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
	entry := ""
	for _, e := range bin {
		if e["kind"] == "survey" && e["title"] == "Feedback 2026" {
			entry = e["id"].(string)
		}
	}
	if entry == "" {
		t.Fatalf("no recycle-bin entry: %v", bin)
	}
	admin.Do(t, "POST", "/nodes/"+node+"/recycle-bin/"+entry+"/restore", nil).Expect(t, 200)
	if got := admin.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t); got["status"] != "open" || got["slug"] != "fb" {
		t.Fatalf("restored survey %v", got)
	}
	resolve(reader, "/polls/surveys/fb", 200)
	if m := menuItem(); m == nil || m["title"] != "Feedback 2026" {
		t.Fatalf("menu item after restore %v", m)
	}
	admin.Do(t, "PATCH", "/surveys/"+id, map[string]any{"addToSideMenu": false}).Expect(t, 200)
	if m := menuItem(); m != nil {
		t.Fatalf("menu item after addToSideMenu=false %v", m)
	}

	// purging the entry deletes the survey with its responses for good
	submitSurvey(admin, t, id, map[string]any{"q": map[string]any{"text": "bye"}}).Expect(t, 201)
	admin.Do(t, "DELETE", "/surveys/"+id, nil).Expect(t, 200)
	admin.Do(t, "GET", "/nodes/"+node+"/recycle-bin", nil).Expect(t, 200).Into(t, &bin)
	for _, e := range bin {
		if e["kind"] == "survey" && e["title"] == "Feedback 2026" {
			entry = e["id"].(string)
		}
	}
	admin.Do(t, "DELETE", "/nodes/"+node+"/recycle-bin/"+entry, nil).Expect(t, 200)
	admin.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 404, "NOT_FOUND")
	db := openDB(t, admin.S)
	for _, table := range []string{"surveys WHERE id = ?", "survey_responses WHERE survey_id = ?", "survey_answers WHERE survey_id = ?",
		"survey_respondents WHERE survey_id = ?", "survey_counts WHERE survey_id = ?", "acl_objects WHERE id = ?"} {
		var n int
		if err := db.Q(context.Background()).QueryRowContext(context.Background(), "SELECT count(*) FROM "+table, id).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s after purge: %d rows, %v", table, n, err)
		}
	}
}

func surveyAnswers(t *testing.T, s *kit.Server, node, editorID, readerID string) {
	admin := s.Admin(t)
	sv := mkSurvey(t, admin, node, "team", surveyDef(false), nil)
	id := sv["id"].(string)
	admin.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200)
	reader := s.Login(t, "reader", "password-reader")
	users := map[string]*kit.Client{}
	for _, login := range []string{"r1", "r2", "r3"} {
		c, uid := s.CreateUser(t, login, false)
		grant(t, s, "node", node, "user", uid, "view")
		users[login] = c
	}
	red := map[string]any{"optionId": "red"}
	bad := []struct {
		name    string
		answers map[string]any
		field   string
	}{
		{"unknown question", map[string]any{"color": red, "nope": map[string]any{"text": "x"}}, "answers.nope"},
		{"required missing", map[string]any{"comment": map[string]any{"text": "x"}}, "answers.color"},
		{"required empty", map[string]any{"color": map[string]any{"optionId": ""}}, "answers.color"},
		{"unknown option", map[string]any{"color": map[string]any{"optionId": "purple"}}, "answers.color"},
		{"single wrong shape", map[string]any{"color": map[string]any{"text": "red"}}, "answers.color"},
		{"not an object", map[string]any{"color": "red"}, "answers.color"},
		{"multiple unknown option", map[string]any{"color": red, "food": map[string]any{"optionIds": []any{"pizza", "steak"}}}, "answers.food"},
		{"multiple not a list", map[string]any{"color": red, "food": map[string]any{"optionIds": "pizza"}}, "answers.food"},
		{"text not a string", map[string]any{"color": red, "comment": map[string]any{"text": 12}}, "answers.comment"},
		{"text too long", map[string]any{"color": red, "comment": map[string]any{"text": strings.Repeat("x", 10001)}}, "answers.comment"},
		{"number not a number", map[string]any{"color": red, "age": map[string]any{"value": "abc"}}, "answers.age"},
		{"number as text shape", map[string]any{"color": red, "age": map[string]any{"text": "12"}}, "answers.age"},
		{"date month 13", map[string]any{"color": red, "start": map[string]any{"date": "2026-13-01"}}, "answers.start"},
		{"date other format", map[string]any{"color": red, "start": map[string]any{"date": "01/02/2026"}}, "answers.start"},
		{"user missing", map[string]any{"color": red, "boss": map[string]any{"userId": "6f1c1d2e-0000-4000-8000-000000000001"}}, "answers.boss"},
		{"user not a uuid", map[string]any{"color": red, "boss": map[string]any{"userId": "bob"}}, "answers.boss"},
		{"users missing one", map[string]any{"color": red, "team": map[string]any{"users": []any{map[string]any{"userId": editorID}, map[string]any{"userId": "6f1c1d2e-0000-4000-8000-000000000002"}}}}, "answers.team"},
		{"users wrong shape", map[string]any{"color": red, "team": map[string]any{"userId": editorID}}, "answers.team"},
	}
	for _, c := range bad {
		r := submitSurvey(reader, t, id, c.answers).Expect(t, 400, "VALIDATION_ERROR")
		if r.Error.Details["field"] != c.field {
			t.Fatalf("%s: field %v, want %s: %s", c.name, r.Error.Details["field"], c.field, r.Raw)
		}
	}
	reader.Do(t, "POST", "/surveys/"+id+"/submit", map[string]any{}).Expect(t, 400, "VALIDATION_ERROR")
	if n := admin.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t)["answerCount"]; n != float64(0) {
		t.Fatalf("refused answers were counted: %v", n)
	}

	// good answers of every type
	submitSurvey(reader, t, id, map[string]any{"color": red, "food": map[string]any{"optionIds": []any{"pizza", "sushi"}},
		"comment": map[string]any{"text": "  hi  "}, "age": map[string]any{"value": 30}, "start": map[string]any{"date": "2026-01-10"},
		"boss": map[string]any{"userId": editorID, "display": "Someone else"},
		"team": map[string]any{"users": []any{map[string]any{"userId": editorID}, map[string]any{"userId": strings.ToUpper(readerID)}}}}).Expect(t, 201)
	submitSurvey(reader, t, id, map[string]any{"color": red}).Expect(t, 409, "CONFLICT")
	submitSurvey(users["r1"], t, id, map[string]any{"color": map[string]any{"optionId": "blue"}, "food": map[string]any{"optionIds": []any{"pizza"}},
		"age": map[string]any{"value": "40"}, "start": map[string]any{"date": "2026-03-05"}, "boss": map[string]any{"userId": editorID},
		"team": map[string]any{"users": []any{map[string]any{"userId": editorID}}}, "comment": nil}).Expect(t, 201)
	submitSurvey(users["r2"], t, id, map[string]any{"color": red, "food": map[string]any{"optionIds": []any{}}, "age": map[string]any{"value": 20},
		"start": map[string]any{"date": "2025-12-31"}, "boss": map[string]any{"userId": readerID}}).Expect(t, 201)

	// two submissions of one user at once: exactly one is stored
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = submitSurvey(users["r3"], t, id, map[string]any{"color": map[string]any{"optionId": "green"}}).Status
		}()
	}
	wg.Wait()
	if !(statuses[0] == 201 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 201) {
		t.Fatalf("concurrent submits: %v", statuses)
	}

	st := admin.Do(t, "GET", "/surveys/"+id+"/stats", nil).Expect(t, 200).Map(t)
	if st["answerCount"] != float64(4) {
		t.Fatalf("answerCount %v", st["answerCount"])
	}
	qs := map[string]map[string]any{}
	for _, q := range st["questions"].([]any) {
		qs[q.(map[string]any)["id"].(string)] = q.(map[string]any)
	}
	opt := func(q, o string) (float64, float64) {
		for _, x := range qs[q]["options"].([]any) {
			m := x.(map[string]any)
			if m["id"] == o {
				return m["count"].(float64), m["share"].(float64)
			}
		}
		t.Fatalf("option %s.%s missing: %v", q, o, qs[q])
		return 0, 0
	}
	for _, c := range []struct {
		q, o         string
		count, share float64
	}{{"color", "red", 2, 0.5}, {"color", "blue", 1, 0.25}, {"color", "green", 1, 0.25}, {"food", "pizza", 2, 1}, {"food", "sushi", 1, 0.5}, {"food", "salad", 0, 0}} {
		if n, sh := opt(c.q, c.o); n != c.count || sh != c.share {
			t.Fatalf("%s.%s: count %v share %v, want %v %v", c.q, c.o, n, sh, c.count, c.share)
		}
	}
	for q, n := range map[string]float64{"color": 4, "food": 2, "comment": 1, "age": 3, "start": 3, "boss": 3, "team": 2} {
		if qs[q]["answered"] != n {
			t.Fatalf("%s answered %v, want %v", q, qs[q]["answered"], n)
		}
	}
	if num := qs["age"]["number"].(map[string]any); num["min"] != 20.0 || num["max"] != 40.0 || num["mean"] != 30.0 || num["median"] != 30.0 {
		t.Fatalf("age stats %v", num)
	}
	if d := qs["start"]["dates"].(map[string]any); d["from"] != "2025-12-31" || d["to"] != "2026-03-05" {
		t.Fatalf("date range %v", d)
	}
	boss := qs["boss"]["users"].([]any)
	if len(boss) != 2 || boss[0].(map[string]any)["userId"] != editorID || boss[0].(map[string]any)["count"] != 2.0 ||
		boss[0].(map[string]any)["display"] != "Editor" || boss[1].(map[string]any)["userId"] != readerID {
		t.Fatalf("most chosen managers %v", boss)
	}

	r := admin.Do(t, "GET", "/surveys/"+id+"/responses?limit=2", nil).Expect(t, 200)
	if r.Meta["total"] != 4.0 || r.Meta["totalPages"] != 2.0 {
		t.Fatalf("responses meta %v", r.Meta)
	}
	page := r.Map(t)
	rows := page["rows"].([]any)
	first := rows[0].(map[string]any)
	vals := first["values"].(map[string]any)
	if first["number"] != 1.0 || first["respondent"].(map[string]any)["userId"] != readerID || first["respondent"].(map[string]any)["display"] != "Reader" ||
		first["submittedAt"] == nil || vals["color"] != "Red" || vals["food"] != "Pizza; Sushi" || vals["comment"] != "hi" || vals["age"] != "30" ||
		vals["start"] != "2026-01-10" || vals["boss"] != "Editor" || vals["team"] != "Editor; Reader" {
		t.Fatalf("first response %v", first)
	}
	if a := first["answers"].(map[string]any); a["color"].(map[string]any)["optionId"] != "red" || len(a["food"].(map[string]any)["optionIds"].([]any)) != 2 ||
		a["age"].(map[string]any)["value"] != 30.0 || a["team"].(map[string]any)["users"].([]any)[1].(map[string]any)["userId"] != readerID {
		t.Fatalf("first response answers %v", a)
	}
	if len(page["columns"].([]any)) != 7 {
		t.Fatalf("columns %v", page["columns"])
	}
	rows = admin.Do(t, "GET", "/surveys/"+id+"/responses?limit=2&page=2", nil).Expect(t, 200).Map(t)["rows"].([]any)
	if len(rows) != 2 || rows[1].(map[string]any)["number"] != 4.0 || rows[1].(map[string]any)["values"].(map[string]any)["color"] != "Green" {
		t.Fatalf("page 2 %v", rows)
	}
	admin.Do(t, "GET", "/surveys/"+id+"/responses?limit=501", nil).Expect(t, 400, "VALIDATION_ERROR")
	if tv := reader.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 200).Map(t); tv["hasAnswered"] != true {
		t.Fatalf("take view after answering %v", tv)
	}
}
