package surveys

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"coreportal/internal/fault"
)

// Bounds of a definition (documented in the API reference).
const (
	maxQuestions     = 200
	maxOptions       = 100
	maxQuestionTitle = 1000
	maxOptionText    = 500
	maxIDLen         = 64
	maxAnswerText    = 10_000
	maxUsersAnswer   = 100
	maxTitle         = 200
	maxDescription   = 4000
)

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var questionTypes = map[string]bool{TypeSingle: true, TypeMultiple: true, TypeText: true, TypeNumber: true, TypeDate: true, TypeUser: true, TypeUsers: true}

func choiceType(t string) bool { return t == TypeSingle || t == TypeMultiple }

// checkDefinition validates a definition and returns it normalised (titles
// trimmed, options kept only on choice questions). details.field names the
// offending part, e.g. definition.questions[2].options[0].id.
func checkDefinition(d SurveyDefinition) (SurveyDefinition, error) {
	if len(d.Questions) > maxQuestions {
		return d, fault.Validation("definition.questions", "a survey has at most %d questions", maxQuestions)
	}
	out := SurveyDefinition{Anonymous: d.Anonymous, Questions: make([]SurveyQuestion, 0, len(d.Questions))}
	seen := map[string]bool{}
	for i, q := range d.Questions {
		at := fmt.Sprintf("definition.questions[%d]", i)
		if !idRE.MatchString(q.ID) {
			return d, fault.Validation(at+".id", "question id must be 1-%d letters, digits, _ or -", maxIDLen)
		}
		if seen[q.ID] {
			return d, fault.Validation(at+".id", "question id %q is used twice", q.ID)
		}
		seen[q.ID] = true
		if !questionTypes[q.Type] {
			return d, fault.Validation(at+".type", "question type must be one of single, multiple, text, number, date, user, users")
		}
		title, err := fault.RequiredText(at+".title", q.Title, maxQuestionTitle)
		if err != nil {
			return d, err
		}
		nq := SurveyQuestion{ID: q.ID, Type: q.Type, Title: title, Required: q.Required}
		if !choiceType(q.Type) {
			if len(q.Options) > 0 {
				return d, fault.Validation(at+".options", "only single and multiple questions have options")
			}
			out.Questions = append(out.Questions, nq)
			continue
		}
		if len(q.Options) == 0 {
			return d, fault.Validation(at+".options", "a %s question needs at least one option", q.Type)
		}
		if len(q.Options) > maxOptions {
			return d, fault.Validation(at+".options", "a question has at most %d options", maxOptions)
		}
		optSeen := map[string]bool{}
		for j, o := range q.Options {
			oat := fmt.Sprintf("%s.options[%d]", at, j)
			if !idRE.MatchString(o.ID) {
				return d, fault.Validation(oat+".id", "option id must be 1-%d letters, digits, _ or -", maxIDLen)
			}
			if optSeen[o.ID] {
				return d, fault.Validation(oat+".id", "option id %q is used twice in question %q", o.ID, q.ID)
			}
			optSeen[o.ID] = true
			text, err := fault.RequiredText(oat+".text", o.Text, maxOptionText)
			if err != nil {
				return d, err
			}
			nq.Options = append(nq.Options, SurveyOption{ID: o.ID, Text: text})
		}
		out.Questions = append(out.Questions, nq)
	}
	return out, nil
}

// sameDefinition reports whether two normalised definitions ask the same
// questions in the same way (the lock after the first answer compares them).
func sameDefinition(a, b SurveyDefinition) bool {
	if a.Anonymous != b.Anonymous || len(a.Questions) != len(b.Questions) {
		return false
	}
	for i := range a.Questions {
		x, y := a.Questions[i], b.Questions[i]
		if x.ID != y.ID || x.Type != y.Type || x.Title != y.Title || x.Required != y.Required || len(x.Options) != len(y.Options) {
			return false
		}
		for j := range x.Options {
			if x.Options[j] != y.Options[j] {
				return false
			}
		}
	}
	return true
}

func checkTitle(t string) (string, error) { return fault.RequiredText("title", t, maxTitle) }

func checkDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if utf8.RuneCountInString(d) > maxDescription {
		return "", fault.Validation("description", "description must have at most %d characters", maxDescription)
	}
	return d, nil
}
