package surveys

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
)

// OptionStat is the count of one option.
type SurveyOptionStat struct {
	ID    string  `json:"id"`
	Text  string  `json:"text"`
	Count int64   `json:"count"`
	Share float64 `json:"share" doc:"count / answered (0..1, 4 decimals); for multiple questions the shares may add up to more than 1"`
}

// NumberStat summarises a number question.
type SurveyNumberStat struct {
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
}

// DateRange is the earliest and latest date answered.
type SurveyDateRange struct {
	From string `json:"from" doc:"YYYY-MM-DD"`
	To   string `json:"to" doc:"YYYY-MM-DD"`
}

// UserStat is a chosen user with how often it was chosen.
type SurveyUserStat struct {
	UserID  string `json:"userId" format:"uuid"`
	Display string `json:"display"`
	Count   int64  `json:"count"`
}

// QuestionStats are the aggregates of one question.
type SurveyQuestionStats struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Title    string             `json:"title"`
	Answered int64              `json:"answered" doc:"responses that answer this question"`
	Options  []SurveyOptionStat `json:"options,omitempty" doc:"single and multiple: every option in definition order"`
	Number   *SurveyNumberStat  `json:"number,omitempty" doc:"number questions with answers"`
	Dates    *SurveyDateRange   `json:"dates,omitempty" doc:"date questions with answers"`
	Users    []SurveyUserStat   `json:"users,omitempty" doc:"user and users questions: the 10 most chosen users, most first"`
}

// Stats is the answer of GET /surveys/{id}/stats.
type SurveyStats struct {
	SurveyID    string                `json:"surveyId" format:"uuid"`
	Status      string                `json:"status"`
	AnswerCount int64                 `json:"answerCount" doc:"number of responses"`
	Questions   []SurveyQuestionStats `json:"questions"`
}

const topUsers = 10

// Stats computes the aggregates (edit on the survey) from the running counts
// and index range scans of the answer rows: no response is decoded.
func (s *Service) Stats(ctx context.Context, p *auth.Principal, id string) (SurveyStats, error) {
	sv, _, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyStats{}, err
	}
	rows, err := s.st.counts(ctx, sv.ID)
	if err != nil {
		return SurveyStats{}, err
	}
	type agg struct {
		answered int64
		total    float64
		options  map[string]int64
		users    []SurveyUserStat
	}
	by := map[string]*agg{}
	for _, q := range sv.Definition.Questions {
		by[q.ID] = &agg{options: map[string]int64{}}
	}
	for _, c := range rows {
		a := by[c.question]
		if a == nil {
			continue
		}
		switch c.kind {
		case "q":
			a.answered, a.total = c.n, c.total
		case "o":
			a.options[c.key] = c.n
		case "u":
			a.users = append(a.users, SurveyUserStat{UserID: c.key, Display: c.label, Count: c.n})
		}
	}
	out := SurveyStats{SurveyID: sv.ID, Status: sv.Status, AnswerCount: sv.AnswerCount, Questions: make([]SurveyQuestionStats, 0, len(sv.Definition.Questions))}
	for _, q := range sv.Definition.Questions {
		a := by[q.ID]
		qs := SurveyQuestionStats{ID: q.ID, Type: q.Type, Title: q.Title, Answered: a.answered}
		switch q.Type {
		case TypeSingle, TypeMultiple:
			qs.Options = make([]SurveyOptionStat, 0, len(q.Options))
			for _, o := range q.Options {
				n := a.options[o.ID]
				qs.Options = append(qs.Options, SurveyOptionStat{ID: o.ID, Text: o.Text, Count: n, Share: share(n, a.answered)})
			}
		case TypeNumber:
			if a.answered > 0 {
				if qs.Number, err = s.numberStats(ctx, sv.ID, q.ID, a.answered, a.total); err != nil {
					return SurveyStats{}, err
				}
			}
		case TypeDate:
			if a.answered > 0 {
				from, err := s.st.dateEnd(ctx, sv.ID, q.ID, false)
				if err != nil {
					return SurveyStats{}, err
				}
				to, err := s.st.dateEnd(ctx, sv.ID, q.ID, true)
				if err != nil {
					return SurveyStats{}, err
				}
				if from != nil && to != nil {
					qs.Dates = &SurveyDateRange{From: *from, To: *to}
				}
			}
		case TypeUser, TypeUsers:
			sort.Slice(a.users, func(i, j int) bool {
				if a.users[i].Count != a.users[j].Count {
					return a.users[i].Count > a.users[j].Count
				}
				return a.users[i].Display < a.users[j].Display
			})
			qs.Users = a.users[:min(topUsers, len(a.users))]
		}
		out.Questions = append(out.Questions, qs)
	}
	return out, nil
}

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(of)*10000) / 10000
}

func (s *Service) numberStats(ctx context.Context, surveyID, qid string, n int64, total float64) (*SurveyNumberStat, error) {
	lo, err := s.st.numberEnd(ctx, surveyID, qid, false)
	if err != nil || lo == nil {
		return nil, err
	}
	hi, err := s.st.numberEnd(ctx, surveyID, qid, true)
	if err != nil || hi == nil {
		return nil, err
	}
	mid, err := s.st.numberAt(ctx, surveyID, qid, (n-1)/2, 2)
	if err != nil {
		return nil, err
	}
	med := *lo
	switch {
	case len(mid) == 0:
	case n%2 == 1 || len(mid) == 1:
		med = mid[0]
	default:
		med = mid[0]/2 + mid[1]/2 // no overflow near the float64 limit
	}
	mean := total / float64(n)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		// the running sum overflowed (answers stored before numbers were
		// bounded): a running mean over the sorted values cannot
		if mean, err = s.streamMean(ctx, surveyID, qid); err != nil {
			return nil, err
		}
	}
	return &SurveyNumberStat{Min: *lo, Max: *hi, Mean: mean, Median: med}, nil
}

// streamMean computes the mean of a question's numbers page by page with
// the incremental formula m += (v-m)/k, which stays within the values' range.
func (s *Service) streamMean(ctx context.Context, surveyID, qid string) (float64, error) {
	const page = 5000
	var m float64
	var k int64
	for {
		vs, err := s.st.numberAt(ctx, surveyID, qid, k, page)
		if err != nil {
			return 0, err
		}
		for _, v := range vs {
			k++
			m += v/float64(k) - m/float64(k)
		}
		if len(vs) < page {
			return m, nil
		}
	}
}

// Column is one question column of the responses table.
type SurveyColumn struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Type  string `json:"type"`
}

// ResponseRow is one response in the table.
type SurveyResponseRow struct {
	Number      int64                   `json:"number" doc:"1 for the first response, in order of submission"`
	Respondent  *SurveyUserRef          `json:"respondent" doc:"null in anonymous surveys"`
	SubmittedAt *time.Time              `json:"submittedAt" doc:"null in anonymous surveys"`
	Answers     map[string]SurveyAnswer `json:"answers" doc:"by question id, in the shapes of the question types; unanswered questions are absent"`
	Values      map[string]string       `json:"values" doc:"by question id, readable text: option texts, user names and several values joined with \"; \""`
}

// ResponsesPage is the answer of GET /surveys/{id}/responses.
type SurveyResponsesPage struct {
	Anonymous bool                `json:"anonymous"`
	Columns   []SurveyColumn      `json:"columns"`
	Rows      []SurveyResponseRow `json:"rows"`
}

// Responses returns one page of responses in submission order (edit on the survey).
func (s *Service) Responses(ctx context.Context, p *auth.Principal, id string, page, limit int) (SurveyResponsesPage, int64, error) {
	if page < 1 || limit < 1 || limit > 500 {
		return SurveyResponsesPage{}, 0, fault.Validation("limit", "page must be at least 1 and limit 1-500")
	}
	sv, _, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyResponsesPage{}, 0, err
	}
	out := SurveyResponsesPage{Anonymous: sv.Definition.Anonymous, Columns: columns(sv.Definition), Rows: []SurveyResponseRow{}}
	rs, err := s.st.responses(ctx, sv.ID, int64(page-1)*int64(limit), limit)
	if err != nil {
		return SurveyResponsesPage{}, 0, err
	}
	for _, r := range rs {
		row := SurveyResponseRow{Number: r.Seq, Answers: map[string]SurveyAnswer{}, Values: map[string]string{}}
		if !sv.Definition.Anonymous && r.Respondent.Valid {
			row.Respondent = &SurveyUserRef{UserID: strings.ToLower(r.Respondent.String), Display: r.Name.String}
			at := r.At
			row.SubmittedAt = &at
		}
		for qid, vs := range groupValues(r.Values) {
			q, ok := sv.Definition.question(qid)
			if !ok {
				continue
			}
			row.Answers[qid] = answerOf(q, vs)
			row.Values[qid] = readable(q, vs)
		}
		out.Rows = append(out.Rows, row)
	}
	return out, sv.AnswerCount, nil
}

func columns(d SurveyDefinition) []SurveyColumn {
	out := make([]SurveyColumn, 0, len(d.Questions))
	for _, q := range d.Questions {
		out = append(out, SurveyColumn{ID: q.ID, Title: q.Title, Type: q.Type})
	}
	return out
}

func groupValues(vs []value) map[string][]value {
	out := map[string][]value{}
	for _, v := range vs {
		out[v.Question] = append(out[v.Question], v)
	}
	return out
}

// answerOf rebuilds the SPEC.md answer shape of a question's values.
func answerOf(q *SurveyQuestion, vs []value) SurveyAnswer {
	var a SurveyAnswer
	switch q.Type {
	case TypeSingle:
		a.OptionID = vs[0].OptionID
	case TypeMultiple:
		a.OptionIDs = []string{}
		for _, v := range vs {
			a.OptionIDs = append(a.OptionIDs, deref(v.OptionID))
		}
	case TypeText:
		a.Text = vs[0].Text
	case TypeNumber:
		a.Value = vs[0].Num
	case TypeDate:
		a.Date = vs[0].Date
	case TypeUser:
		a.UserID, a.Display = vs[0].UserID, vs[0].Display
	case TypeUsers:
		for _, v := range vs {
			a.Users = append(a.Users, SurveyUserRef{UserID: deref(v.UserID), Display: deref(v.Display)})
		}
	}
	return a
}

// readable renders a question's values as text.
func readable(q *SurveyQuestion, vs []value) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		switch {
		case v.OptionID != nil:
			if o, ok := q.option(*v.OptionID); ok {
				parts = append(parts, o.Text)
			} else {
				parts = append(parts, *v.OptionID)
			}
		case v.Num != nil:
			parts = append(parts, strconv.FormatFloat(*v.Num, 'f', -1, 64))
		case v.UserID != nil:
			parts = append(parts, deref(v.Display))
		case v.Date != nil:
			parts = append(parts, *v.Date)
		case v.Text != nil:
			parts = append(parts, *v.Text)
		}
	}
	return strings.Join(parts, "; ")
}
