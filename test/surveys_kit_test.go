package test

import (
	"testing"
	"time"

	"coreportal/test/kit"
)

// surveyDef is a definition with one question of every type.
func surveyDef(anonymous bool) map[string]any {
	return map[string]any{"anonymous": anonymous, "questions": []any{
		map[string]any{"id": "color", "type": "single", "title": "Favourite colour", "required": true,
			"options": []any{map[string]any{"id": "red", "text": "Red"}, map[string]any{"id": "blue", "text": "Blue"}, map[string]any{"id": "green", "text": "Green"}}},
		map[string]any{"id": "food", "type": "multiple", "title": "Food",
			"options": []any{map[string]any{"id": "pizza", "text": "Pizza"}, map[string]any{"id": "sushi", "text": "Sushi"}, map[string]any{"id": "salad", "text": "Salad"}}},
		map[string]any{"id": "comment", "type": "text", "title": "Comment"},
		map[string]any{"id": "age", "type": "number", "title": "Age"},
		map[string]any{"id": "start", "type": "date", "title": "Start date"},
		map[string]any{"id": "boss", "type": "user", "title": "Manager"},
		map[string]any{"id": "team", "type": "users", "title": "Team"},
	}}
}

// mkSurvey creates a survey on node as c and returns its card.
func mkSurvey(t *testing.T, c *kit.Client, node, slug string, def map[string]any, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"nodeId": node, "slug": slug, "title": "Survey " + slug, "definition": def}
	for k, v := range extra {
		body[k] = v
	}
	return c.Do(t, "POST", "/surveys", body).Expect(t, 201).Map(t)
}

func submitSurvey(c *kit.Client, t *testing.T, id string, answers map[string]any) *kit.Response {
	t.Helper()
	return c.Do(t, "POST", "/surveys/"+id+"/submit", map[string]any{"answers": answers})
}

// waitExport polls the export status until it leaves queued/running.
func waitExport(t *testing.T, c *kit.Client, surveyID, exportID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var st map[string]any
	for time.Now().Before(deadline) {
		st = c.Do(t, "GET", "/surveys/"+surveyID+"/export/"+exportID, nil).Expect(t, 200).Map(t)
		if st["status"] == "done" || st["status"] == "failed" {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("export %s did not finish: %v", exportID, st)
	return nil
}
