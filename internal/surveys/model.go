// Package surveys is the surveys capability (SPEC.md "Survey", "Surveys"):
// definition and its validation, the draft/open/closed states, answers with
// one response per user (also in anonymous mode, without storing who),
// statistics as SQL aggregates, the paged responses table and XLSX exports
// built by a background job.
//
// Storage (migration 1000): surveys; survey_responses (one row per response,
// numbered seq 1..n per survey, respondent NULL when anonymous);
// survey_answers (one row per response, question and value, in typed
// columns: option_id, text_val, num, date_val, user_id); survey_counts
// (running counts per question, option and chosen user, kept in the
// submitting transaction); survey_respondents (one row per user who
// answered, keyed by an HMAC of survey and user, never the user id).
package surveys

import (
	"encoding/json"
	"time"
)

// Statuses (CONTRACT.md).
const (
	StatusDraft  = "draft"
	StatusOpen   = "open"
	StatusClosed = "closed"
)

// Question types (CONTRACT.md).
const (
	TypeSingle   = "single"
	TypeMultiple = "multiple"
	TypeText     = "text"
	TypeNumber   = "number"
	TypeDate     = "date"
	TypeUser     = "user"
	TypeUsers    = "users"
)

// Option is one choice of a single or multiple question.
type SurveyOption struct {
	ID   string `json:"id" minLength:"1" maxLength:"64" doc:"unique within the question: letters, digits, _ and -"`
	Text string `json:"text" minLength:"1" maxLength:"500"`
}

// Question is one question of a definition.
type SurveyQuestion struct {
	ID       string         `json:"id" minLength:"1" maxLength:"64" doc:"unique within the survey: letters, digits, _ and -"`
	Type     string         `json:"type" enum:"single,multiple,text,number,date,user,users"`
	Title    string         `json:"title" minLength:"1" maxLength:"1000"`
	Required bool           `json:"required" required:"false"`
	Options  []SurveyOption `json:"options,omitempty" maxItems:"100" doc:"single and multiple only (at least 1, ids unique); refused on other types"`
}

// Definition is the questions of a survey (CONTRACT.md).
type SurveyDefinition struct {
	Anonymous bool             `json:"anonymous" required:"false" doc:"true: the respondent is never stored; responses, statistics and export carry no names"`
	Questions []SurveyQuestion `json:"questions" maxItems:"200"`
}

func (d SurveyDefinition) question(id string) (*SurveyQuestion, bool) {
	for i := range d.Questions {
		if d.Questions[i].ID == id {
			return &d.Questions[i], true
		}
	}
	return nil, false
}

func (q *SurveyQuestion) option(id string) (*SurveyOption, bool) {
	for i := range q.Options {
		if q.Options[i].ID == id {
			return &q.Options[i], true
		}
	}
	return nil, false
}

// Survey is one stored survey.
type Survey struct {
	ID            string
	NodeID        string
	Slug          string
	Title         string
	Description   string
	AddToSideMenu bool
	Definition    SurveyDefinition
	DefVersion    int
	Status        string
	AnswerCount   int64
	CreatedBy     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Card is a survey as the API shows it to editors.
type SurveyCard struct {
	ID            string           `json:"id" format:"uuid"`
	NodeID        string           `json:"nodeId" format:"uuid"`
	Slug          string           `json:"slug"`
	Title         string           `json:"title"`
	Description   string           `json:"description"`
	AddToSideMenu bool             `json:"addToSideMenu"`
	Status        string           `json:"status" enum:"draft,open,closed"`
	Anonymous     bool             `json:"anonymous"`
	Definition    SurveyDefinition `json:"definition"`
	AnswerCount   *int64           `json:"answerCount" doc:"number of responses; null unless the caller has edit on the survey (results need edit)"`
	Locked        bool             `json:"locked" doc:"true once the survey has answers: its questions can no longer change"`
	HasAnswered   bool             `json:"hasAnswered" doc:"the caller has answered"`
	CanEdit       bool             `json:"canEdit" doc:"the caller has edit on the survey (builder, results, export)"`
	CanDelete     bool             `json:"canDelete"`
	CreatedAt     time.Time        `json:"createdAt"`
	UpdatedAt     time.Time        `json:"updatedAt"`
}

// Summary is a survey in the node catalog.
type SurveySummary struct {
	ID            string    `json:"id" format:"uuid"`
	NodeID        string    `json:"nodeId" format:"uuid"`
	Slug          string    `json:"slug"`
	Title         string    `json:"title"`
	Status        string    `json:"status" enum:"draft,open,closed"`
	Anonymous     bool      `json:"anonymous"`
	AddToSideMenu bool      `json:"addToSideMenu"`
	AnswerCount   *int64    `json:"answerCount" doc:"number of responses; null unless the caller has edit on the survey (results need edit)"`
	HasAnswered   bool      `json:"hasAnswered"`
	CanEdit       bool      `json:"canEdit"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// Catalog is the answer of GET /surveys?nodeId=.
type SurveyCatalog struct {
	CanCreate bool            `json:"canCreate" doc:"the caller has edit on the node"`
	Items     []SurveySummary `json:"items"`
}

// TakeView is the taking view (?take=true): questions only, no results.
type SurveyTakeView struct {
	ID          string           `json:"id" format:"uuid"`
	NodeID      string           `json:"nodeId" format:"uuid"`
	Slug        string           `json:"slug"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Status      string           `json:"status" enum:"open"`
	Anonymous   bool             `json:"anonymous"`
	Questions   []SurveyQuestion `json:"questions"`
	HasAnswered bool             `json:"hasAnswered"`
}

// UserRef is a user in an answer.
type SurveyUserRef struct {
	UserID  string `json:"userId" format:"uuid"`
	Display string `json:"display"`
}

// Answer is one answer value as SPEC.md shows it; exactly one shape is set.
type SurveyAnswer struct {
	OptionID  *string         `json:"optionId,omitempty"`
	OptionIDs []string        `json:"optionIds,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Value     *float64        `json:"value,omitempty"`
	Date      *string         `json:"date,omitempty"`
	UserID    *string         `json:"userId,omitempty"`
	Display   *string         `json:"display,omitempty"`
	Users     []SurveyUserRef `json:"users,omitempty"`
}

// value is one stored answer row (one per value of a multi-valued answer).
type value struct {
	Question string
	Pos      int
	OptionID *string
	Text     *string
	Num      *float64
	Date     *string
	UserID   *string
	Display  *string
}

func raw(v any) json.RawMessage {
	j, _ := json.Marshal(v)
	return j
}
