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
