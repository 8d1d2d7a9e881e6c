package test

import (
	"testing"

	"github.com/google/uuid"

	"coreportal/test/kit"
)

// TestSurveys runs the survey scenarios on one server per backend.
func TestSurveys(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		node := mkNode(t, admin, "", "polls")
		editor, editorID := s.CreateUser(t, "editor", false)
		reader, readerID := s.CreateUser(t, "reader", false)
		outsider, _ := s.CreateUser(t, "outsider", false)
		grant(t, s, "node", node, "user", editorID, "edit")
		grant(t, s, "node", node, "user", readerID, "view")
		t.Run("Lifecycle", func(t *testing.T) { surveyLifecycle(t, s, node, editor, reader, outsider) })
		t.Run("Definition", func(t *testing.T) { surveyDefinition(t, admin, node) })
		t.Run("MenuRoutesBin", func(t *testing.T) { surveyMenuRoutesBin(t, admin, reader, node) })
		t.Run("Answers", func(t *testing.T) { surveyAnswers(t, s, node, editorID, readerID) })
		t.Run("Anonymous", func(t *testing.T) { surveyAnonymous(t, s, node, readerID) })
		t.Run("Export", func(t *testing.T) { surveyExport(t, s, node, editorID) })
		t.Run("Numbers", func(t *testing.T) { surveyNumbers(t, s, node) })
		t.Run("BadIDs", func(t *testing.T) { surveyBadIDs(t, s, node) })
		t.Run("CountRights", func(t *testing.T) { surveyCountRights(t, node, editor, reader) })
		t.Run("NullDefinition", func(t *testing.T) { surveyNullDefinition(t, node, editor) })
	})
}

func surveyLifecycle(t *testing.T, s *kit.Server, node string, editor, reader, outsider *kit.Client) {
	sv := mkSurvey(t, editor, node, "lunch", surveyDef(false), nil)
	id := sv["id"].(string)
	if sv["status"] != "draft" || sv["canEdit"] != true || sv["answerCount"] != float64(0) || sv["locked"] != false {
		t.Fatalf("new survey %v", sv)
	}
	// rights: create needs edit on the node
	reader.Do(t, "POST", "/surveys", map[string]any{"nodeId": node, "slug": "x", "title": "X", "definition": surveyDef(false)}).Expect(t, 403, "FORBIDDEN")
	editor.Do(t, "POST", "/surveys", map[string]any{"nodeId": uuid.NewString(), "slug": "x", "title": "X"}).Expect(t, 404, "NOT_FOUND")
	editor.Do(t, "POST", "/surveys", map[string]any{"nodeId": node, "slug": "lunch", "title": "Again"}).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys", map[string]any{"nodeId": node, "slug": "new", "title": "Reserved"}).Expect(t, 400, "VALIDATION_ERROR")

	// a draft: hidden from readers' catalog, its card needs edit, not takeable
	cat := reader.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 200).Map(t)
	if cat["canCreate"] != false || len(cat["items"].([]any)) != 0 {
		t.Fatalf("reader catalog with a draft %v", cat)
	}
	cat = editor.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 200).Map(t)
	if cat["canCreate"] != true || len(cat["items"].([]any)) != 1 {
		t.Fatalf("editor catalog %v", cat)
	}
	outsider.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 403, "FORBIDDEN")
	reader.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 403, "FORBIDDEN")
	outsider.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 403, "FORBIDDEN")
	reader.Do(t, "GET", "/surveys/"+uuid.NewString(), nil).Expect(t, 404, "NOT_FOUND")
	reader.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 409, "CONFLICT")
	submitSurvey(reader, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 409, "CONFLICT")

	// transitions and refusals
	reader.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 403, "FORBIDDEN")
	editor.Do(t, "POST", "/surveys/"+id+"/close", nil).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys/"+id+"/reopen", nil).Expect(t, 409, "CONFLICT")
	if st := editor.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 200).Map(t)["status"]; st != "open" {
		t.Fatalf("published status %v", st)
	}
	editor.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys/"+id+"/reopen", nil).Expect(t, 409, "CONFLICT")
	take := reader.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 200).Map(t)
	if len(take["questions"].([]any)) != 7 || take["hasAnswered"] != false || take["answerCount"] != nil {
		t.Fatalf("take view %v", take)
	}
	outsider.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 403, "FORBIDDEN")
	submitSurvey(outsider, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 403, "FORBIDDEN")
	submitSurvey(reader, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 201)
	reader.Do(t, "GET", "/surveys/"+id+"/stats", nil).Expect(t, 403, "FORBIDDEN")
	reader.Do(t, "GET", "/surveys/"+id+"/responses", nil).Expect(t, 403, "FORBIDDEN")
	reader.Do(t, "POST", "/surveys/"+id+"/export", nil).Expect(t, 403, "FORBIDDEN")
	cat = reader.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 200).Map(t)
	if items := cat["items"].([]any); len(items) != 1 || items[0].(map[string]any)["hasAnswered"] != true || items[0].(map[string]any)["answerCount"] != nil {
		t.Fatalf("reader catalog after answering %v", cat)
	}

	// locked definition: questions refused, same definition and metadata accepted
	def := surveyDef(false)
	def["questions"] = def["questions"].([]any)[:2]
	r := editor.Do(t, "PATCH", "/surveys/"+id, map[string]any{"definition": def}).Expect(t, 409, "CONFLICT")
	if r.Error.Details["field"] != "definition" {
		t.Fatalf("lock error %s", r.Raw)
	}
	editor.Do(t, "PATCH", "/surveys/"+id, map[string]any{"definition": surveyDef(true)}).Expect(t, 409, "CONFLICT")
	card := editor.Do(t, "PATCH", "/surveys/"+id, map[string]any{"definition": surveyDef(false), "title": "Lunch poll", "addToSideMenu": true}).Expect(t, 200).Map(t)
	if card["title"] != "Lunch poll" || card["locked"] != true || card["addToSideMenu"] != true {
		t.Fatalf("patched card %v", card)
	}
	editor.Do(t, "PATCH", "/surveys/"+id, map[string]any{"addToSideMenu": false}).Expect(t, 200)
	reader.Do(t, "PATCH", "/surveys/"+id, map[string]any{"title": "x"}).Expect(t, 403, "FORBIDDEN")

	// close, reopen, duplicate
	editor.Do(t, "POST", "/surveys/"+id+"/close", nil).Expect(t, 200)
	submitSurvey(editor, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys/"+id+"/close", nil).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys/"+id+"/publish", nil).Expect(t, 409, "CONFLICT")
	editor.Do(t, "POST", "/surveys/"+id+"/reopen", nil).Expect(t, 200)
	reader.Do(t, "POST", "/surveys/"+id+"/duplicate", nil).Expect(t, 403, "FORBIDDEN")
	cp := editor.Do(t, "POST", "/surveys/"+id+"/duplicate", nil).Expect(t, 201).Map(t)
	if cp["status"] != "draft" || cp["slug"] != "lunch-copy" || cp["answerCount"] != float64(0) || cp["id"] == id || cp["title"] != "Lunch poll (copy)" {
		t.Fatalf("duplicate %v", cp)
	}
	if cp2 := editor.Do(t, "POST", "/surveys/"+id+"/duplicate", nil).Expect(t, 201).Map(t); cp2["slug"] != "lunch-copy-2" {
		t.Fatalf("second duplicate slug %v", cp2["slug"])
	}
	src := editor.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200).Map(t)
	if src["status"] != "open" || src["answerCount"] != float64(1) || src["slug"] != "lunch" {
		t.Fatalf("source changed by duplicate %v", src)
	}
	// the copy's questions can change: it has no answers
	editor.Do(t, "PATCH", "/surveys/"+cp["id"].(string), map[string]any{"definition": def}).Expect(t, 200)
	// delete needs delete
	editor.Do(t, "DELETE", "/surveys/"+id, nil).Expect(t, 403, "FORBIDDEN")
	// taking also needs view on the node: a grant on the survey alone is not enough
	_, outsiderID := s.CreateUser(t, "guest", false)
	guest := s.Login(t, "guest", "password-guest")
	grant(t, s, "survey", id, "user", outsiderID, "view")
	guest.Do(t, "GET", "/surveys/"+id, nil).Expect(t, 200)
	guest.Do(t, "GET", "/surveys/"+id+"?take=true", nil).Expect(t, 403, "FORBIDDEN")
	submitSurvey(guest, t, id, map[string]any{"color": map[string]any{"optionId": "red"}}).Expect(t, 403, "FORBIDDEN")
}

func surveyDefinition(t *testing.T, admin *kit.Client, node string) {
	q := func(extra map[string]any) map[string]any {
		m := map[string]any{"id": "q1", "type": "text", "title": "Q"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	opts := []any{map[string]any{"id": "a", "text": "A"}}
	long := make([]byte, 1001)
	for i := range long {
		long[i] = 'x'
	}
	many := []any{}
	for i := 0; i < 201; i++ {
		many = append(many, map[string]any{"id": "q" + uuid.NewString()[:8], "type": "text", "title": "Q"})
	}
	cases := []struct {
		name      string
		questions []any
		field     string
	}{
		{"duplicate id", []any{q(nil), q(nil)}, "definition.questions[1].id"},
		{"bad id", []any{q(map[string]any{"id": "a b"})}, "definition.questions[0].id"},
		{"bad type", []any{q(map[string]any{"type": "rating"})}, "definition.questions[0].type"},
		{"empty title", []any{q(map[string]any{"title": " "})}, "definition.questions[0].title"},
		{"long title", []any{q(map[string]any{"title": string(long)})}, "definition.questions[0].title"},
		{"choice without options", []any{q(map[string]any{"type": "single"})}, "definition.questions[0].options"},
		{"options on text", []any{q(map[string]any{"options": opts})}, "definition.questions[0].options"},
		{"duplicate option", []any{q(map[string]any{"type": "multiple", "options": []any{opts[0], opts[0]}})}, "definition.questions[0].options[1].id"},
		{"empty option text", []any{q(map[string]any{"type": "single", "options": []any{map[string]any{"id": "a", "text": ""}}})}, ""},
		{"too many questions", many, ""},
	}
	for i, c := range cases {
		r := admin.Do(t, "POST", "/surveys", map[string]any{"nodeId": node, "slug": "bad-" + uuid.NewString()[:6], "title": "Bad",
			"definition": map[string]any{"questions": c.questions}})
		r.Expect(t, 400, "VALIDATION_ERROR")
		if c.field != "" && r.Error.Details["field"] != c.field {
			t.Fatalf("case %d %s: field %v, want %s: %s", i, c.name, r.Error.Details["field"], c.field, r.Raw)
		}
	}
	// unknown keys in the definition are refused
	admin.Do(t, "POST", "/surveys", map[string]any{"nodeId": node, "slug": "bad-key", "title": "Bad",
		"definition": map[string]any{"questions": []any{q(map[string]any{"colour": "red"})}}}).Expect(t, 400, "VALIDATION_ERROR")
	// a survey without questions cannot be published
	empty := mkSurvey(t, admin, node, "empty", map[string]any{"questions": []any{}}, nil)
	admin.Do(t, "POST", "/surveys/"+empty["id"].(string)+"/publish", nil).Expect(t, 400, "VALIDATION_ERROR")
	// nothing was stored by the refused requests
	cat := admin.Do(t, "GET", "/surveys?nodeId="+node, nil).Expect(t, 200).Map(t)
	for _, it := range cat["items"].([]any) {
		if slug := it.(map[string]any)["slug"].(string); len(slug) > 3 && slug[:4] == "bad-" {
			t.Fatalf("a refused survey was stored: %v", it)
		}
	}
}
