package surveys

import (
	"context"
	"testing"

	"coreportal/internal/fault"
)

func TestCheckDefinition(t *testing.T) {
	opt := []SurveyOption{{ID: "a", Text: "A"}}
	cases := []struct {
		name  string
		in    []SurveyQuestion
		field string // "" = valid
	}{
		{"empty", nil, ""},
		{"every type", []SurveyQuestion{{ID: "s", Type: TypeSingle, Title: "S", Options: opt}, {ID: "m", Type: TypeMultiple, Title: "M", Options: opt},
			{ID: "t", Type: TypeText, Title: "T"}, {ID: "n", Type: TypeNumber, Title: "N"}, {ID: "d", Type: TypeDate, Title: "D"},
			{ID: "u", Type: TypeUser, Title: "U"}, {ID: "us", Type: TypeUsers, Title: "Us", Required: true}}, ""},
		{"duplicate question", []SurveyQuestion{{ID: "q", Type: TypeText, Title: "A"}, {ID: "q", Type: TypeText, Title: "B"}}, "definition.questions[1].id"},
		{"id with space", []SurveyQuestion{{ID: "a b", Type: TypeText, Title: "A"}}, "definition.questions[0].id"},
		{"unknown type", []SurveyQuestion{{ID: "q", Type: "scale", Title: "A"}}, "definition.questions[0].type"},
		{"blank title", []SurveyQuestion{{ID: "q", Type: TypeText, Title: "  "}}, "definition.questions[0].title"},
		{"choice without options", []SurveyQuestion{{ID: "q", Type: TypeSingle, Title: "A"}}, "definition.questions[0].options"},
		{"options on number", []SurveyQuestion{{ID: "q", Type: TypeNumber, Title: "A", Options: opt}}, "definition.questions[0].options"},
		{"duplicate option", []SurveyQuestion{{ID: "q", Type: TypeMultiple, Title: "A", Options: []SurveyOption{{ID: "a", Text: "A"}, {ID: "a", Text: "B"}}}}, "definition.questions[0].options[1].id"},
		{"blank option", []SurveyQuestion{{ID: "q", Type: TypeSingle, Title: "A", Options: []SurveyOption{{ID: "a", Text: ""}}}}, "definition.questions[0].options[0].text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkDefinition(SurveyDefinition{Questions: c.in})
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation || fe.Details["field"] != c.field {
				t.Fatalf("got %v, want validation of %s", err, c.field)
			}
		})
	}
}

func TestSameDefinition(t *testing.T) {
	base := SurveyDefinition{Questions: []SurveyQuestion{{ID: "q", Type: TypeSingle, Title: "Q", Options: []SurveyOption{{ID: "a", Text: "A"}}}}}
	changed := []func(d *SurveyDefinition){
		func(d *SurveyDefinition) { d.Anonymous = true },
		func(d *SurveyDefinition) { d.Questions[0].Title = "Other" },
		func(d *SurveyDefinition) { d.Questions[0].Required = true },
		func(d *SurveyDefinition) { d.Questions[0].Options[0].Text = "B" },
		func(d *SurveyDefinition) {
			d.Questions = append(d.Questions, SurveyQuestion{ID: "x", Type: TypeText, Title: "X"})
		},
	}
	if !sameDefinition(base, base) {
		t.Fatal("a definition differs from itself")
	}
	for i, ch := range changed {
		d := SurveyDefinition{Questions: []SurveyQuestion{{ID: "q", Type: TypeSingle, Title: "Q", Options: []SurveyOption{{ID: "a", Text: "A"}}}}}
		ch(&d)
		if sameDefinition(base, d) {
			t.Fatalf("change %d not seen", i)
		}
	}
}

func TestCheckAnswers(t *testing.T) {
	d := SurveyDefinition{Questions: []SurveyQuestion{
		{ID: "s", Type: TypeSingle, Title: "S", Required: true, Options: []SurveyOption{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}}},
		{ID: "m", Type: TypeMultiple, Title: "M", Options: []SurveyOption{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}}},
		{ID: "n", Type: TypeNumber, Title: "N"}, {ID: "d", Type: TypeDate, Title: "D"}, {ID: "u", Type: TypeUsers, Title: "U"},
	}}
	known := "0b6a3f4e-1111-4222-8333-444455556666"
	env := answerEnv{userName: func(_ context.Context, id string) (string, error) {
		if id == known {
			return "Known", nil
		}
		return "", fault.NotFound("user")
	}}
	s := map[string]any{"optionId": "a"}
	cases := []struct {
		name  string
		in    map[string]any
		rows  int
		field string
	}{
		{"minimal", map[string]any{"s": s}, 1, ""},
		{"multiple deduplicated", map[string]any{"s": s, "m": map[string]any{"optionIds": []any{"a", "b", "a"}}}, 3, ""},
		{"number string", map[string]any{"s": s, "n": map[string]any{"value": "2.5"}}, 2, ""},
		{"users", map[string]any{"s": s, "u": map[string]any{"users": []any{map[string]any{"userId": known, "display": "x"}}}}, 2, ""},
		{"null is no answer", map[string]any{"s": s, "n": nil, "m": map[string]any{"optionIds": []any{}}}, 1, ""},
		{"required", map[string]any{"n": map[string]any{"value": 1}}, 0, "answers.s"},
		{"unknown question", map[string]any{"s": s, "zz": map[string]any{"value": 1}}, 0, "answers.zz"},
		{"bad option", map[string]any{"s": map[string]any{"optionId": "c"}}, 0, "answers.s"},
		{"bad number", map[string]any{"s": s, "n": map[string]any{"value": true}}, 0, "answers.n"},
		{"bad date", map[string]any{"s": s, "d": map[string]any{"date": "2026-02-30"}}, 0, "answers.d"},
		{"unknown user", map[string]any{"s": s, "u": map[string]any{"users": []any{map[string]any{"userId": "0b6a3f4e-1111-4222-8333-444455556667"}}}}, 0, "answers.u"},
		{"shape of another type", map[string]any{"s": s, "d": map[string]any{"value": 3}}, 0, "answers.d"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := checkAnswers(context.Background(), d, c.in, env)
			if c.field == "" {
				if err != nil || len(rows) != c.rows {
					t.Fatalf("rows %d err %v, want %d rows", len(rows), err, c.rows)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Details["field"] != c.field {
				t.Fatalf("got %v, want a validation error on %s", err, c.field)
			}
		})
	}
}
