package surveys

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"coreportal/internal/fault"
	"coreportal/internal/field"
)

// Answer values follow the field types of lists where the rules are the same
// (internal/field): text, number, date (YYYY-MM-DD) and user references are
// normalised by the field kinds, so a survey accepts exactly what a list
// field of that type accepts.

var kindOf = map[string]string{TypeText: field.MultilineText, TypeNumber: field.Number, TypeDate: field.Date, TypeUser: field.Person, TypeUsers: field.Person}

// answerEnv resolves users for person values; surveys have no lookups.
type answerEnv struct {
	userName func(ctx context.Context, id string) (string, error)
}

func (e answerEnv) Subject(ctx context.Context, principalType, id string) (string, error) {
	if principalType != "user" {
		return "", fault.NotFound(principalType)
	}
	return e.userName(ctx, id)
}

func (answerEnv) LookupItem(context.Context, *field.Def, int64) (string, error) {
	return "", errors.New("surveys have no lookup questions")
}

func answerError(q *SurveyQuestion, format string, args ...any) error {
	e := fault.Validation("answers."+q.ID, q.Title+": "+format, args...)
	return e.With("questionId", q.ID)
}

// maxNumberAnswer bounds number answers: |v| <= 1e15 keeps every value exact
// to the unit, and the running sums (at most 2^63 responses) far from the
// float64 overflow on both databases.
const maxNumberAnswer = 1e15

func numberRangeError(q *SurveyQuestion) error {
	return answerError(q, "the value must be a finite number between -1e15 and 1e15")
}

func checkNumber(q *SurveyQuestion, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxNumberAnswer {
		return numberRangeError(q)
	}
	return nil
}

// checkNumberText refuses a JSON number literal out of range (1e400, which
// float64 cannot hold) with the question's message before the field kind
// parses it.
func checkNumberText(q *SurveyQuestion, raw json.RawMessage) error {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" || t[0] == '"' {
		return nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return answerError(q, "the value must be a number")
	}
	return checkNumber(q, v)
}

// strictDecode decodes one answer object, refusing keys of other shapes.
func strictDecode(v any, dst any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

var shapeOf = map[string]string{
	TypeSingle: "{ optionId }", TypeMultiple: "{ optionIds: [] }", TypeText: "{ text }", TypeNumber: "{ value }",
	TypeDate: "{ date: YYYY-MM-DD }", TypeUser: "{ userId, display? }", TypeUsers: "{ users: [{ userId, display? }] }",
}

// checkAnswers validates a submission against the definition and returns
// the answer rows. Every answer key must be a question id; required
// questions must be answered; an empty value (null, "", []) is no answer.
func checkAnswers(ctx context.Context, d SurveyDefinition, in map[string]any, env answerEnv) ([]value, error) {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []value
	answered := map[string]bool{}
	for _, k := range keys {
		q, ok := d.question(k)
		if !ok {
			return nil, fault.Validation("answers."+k, "the survey has no question %q", k).With("questionId", k)
		}
		if in[k] == nil {
			continue
		}
		if _, isObj := in[k].(map[string]any); !isObj {
			return nil, answerError(q, "the answer must be an object %s", shapeOf[q.Type])
		}
		vs, err := checkAnswer(ctx, q, in[k], env)
		if err != nil {
			return nil, err
		}
		if len(vs) > 0 {
			answered[q.ID] = true
			out = append(out, vs...)
		}
	}
	for i := range d.Questions {
		q := &d.Questions[i]
		if q.Required && !answered[q.ID] {
			return nil, answerError(q, "an answer is required")
		}
	}
	return out, nil
}

func checkAnswer(ctx context.Context, q *SurveyQuestion, v any, env answerEnv) ([]value, error) {
	shapeErr := func() error { return answerError(q, "the answer must have the shape %s", shapeOf[q.Type]) }
	switch q.Type {
	case TypeSingle:
		var a struct {
			OptionID *string `json:"optionId"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		if a.OptionID == nil || *a.OptionID == "" {
			return nil, nil
		}
		if _, ok := q.option(*a.OptionID); !ok {
			return nil, answerError(q, "option %q does not exist", *a.OptionID)
		}
		return []value{{Question: q.ID, OptionID: a.OptionID}}, nil
	case TypeMultiple:
		var a struct {
			OptionIDs []string `json:"optionIds"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		var out []value
		seen := map[string]bool{}
		for _, id := range a.OptionIDs {
			if _, ok := q.option(id); !ok {
				return nil, answerError(q, "option %q does not exist", id)
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, value{Question: q.ID, Pos: len(out), OptionID: &id})
		}
		return out, nil
	}
	var rawVal json.RawMessage
	var users []json.RawMessage
	switch q.Type {
	case TypeText:
		var a struct {
			Text json.RawMessage `json:"text"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		rawVal = a.Text
	case TypeNumber:
		var a struct {
			Value json.RawMessage `json:"value"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		if err := checkNumberText(q, a.Value); err != nil {
			return nil, err
		}
		rawVal = a.Value
	case TypeDate:
		var a struct {
			Date json.RawMessage `json:"date"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		rawVal = a.Date
	case TypeUser:
		var a userIn
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		if a.UserID == "" {
			return nil, nil
		}
		users = append(users, a.subject())
	case TypeUsers:
		var a struct {
			Users []userIn `json:"users"`
		}
		if strictDecode(v, &a) != nil {
			return nil, shapeErr()
		}
		if len(a.Users) > maxUsersAnswer {
			return nil, answerError(q, "at most %d users", maxUsersAnswer)
		}
		for _, u := range a.Users {
			users = append(users, u.subject())
		}
		if len(users) == 0 {
			return nil, nil
		}
	}
	return normalise(ctx, q, rawVal, users, env)
}

type userIn struct {
	UserID  string `json:"userId"`
	Display string `json:"display"` // ignored: the server shows the user's current name
}

func (u userIn) subject() json.RawMessage {
	return raw(map[string]string{"principalType": "user", "id": u.UserID})
}

// normalise runs the value through the field kind of its type.
func normalise(ctx context.Context, q *SurveyQuestion, rawVal json.RawMessage, users []json.RawMessage, env answerEnv) ([]value, error) {
	yes, no := true, false
	def := &field.Def{ID: q.ID, Title: q.Title, Type: kindOf[q.Type], Settings: field.FieldSettings{AllowUsers: &yes, AllowGroups: &no, AllowMultiple: &yes}}
	if q.Type == TypeUser || q.Type == TypeUsers {
		rawVal = raw(users)
	}
	kind, _ := field.Of(def.Type)
	nv, err := kind.Normalize(ctx, def, rawVal, env)
	if err != nil {
		var fe *field.Error
		if errors.As(err, &fe) {
			return nil, answerError(q, "%s", strings.TrimPrefix(fe.Message, q.Title+": "))
		}
		return nil, err
	}
	if nv == nil {
		return nil, nil
	}
	switch x := nv.(type) {
	case string:
		if q.Type == TypeText {
			x = strings.TrimSpace(x)
			if x == "" {
				return nil, nil
			}
			if utf8.RuneCountInString(x) > maxAnswerText {
				return nil, answerError(q, "the text must have at most %d characters", maxAnswerText)
			}
			return []value{{Question: q.ID, Text: &x}}, nil
		}
		return []value{{Question: q.ID, Date: &x}}, nil
	case float64:
		if err := checkNumber(q, x); err != nil {
			return nil, err
		}
		return []value{{Question: q.ID, Num: &x}}, nil
	case []field.Subject:
		out := make([]value, 0, len(x))
		for i := range x {
			out = append(out, value{Question: q.ID, Pos: i, UserID: &x[i].ID, Display: &x[i].Display})
		}
		return out, nil
	case field.Subject:
		return []value{{Question: q.ID, UserID: &x.ID, Display: &x.Display}}, nil
	}
	return nil, answerError(q, "the answer is not valid")
}
