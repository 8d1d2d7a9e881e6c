package surveys

import (
	"context"

	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// SeedResponse is one response for SeedResponses.
type SeedResponse struct {
	RespondentID string // a user id (need not exist); kept only in non-anonymous surveys
	Name         string
	Answers      map[string]any
}

// SeedResponses stores many responses of an open survey in one transaction
// with multi-row INSERTs. It is for benchmarks and fixtures: answers are
// validated like a submit and the one-response-per-user marks are written,
// but the respondents are taken as given.
func (s *Service) SeedResponses(ctx context.Context, surveyID string, in []SeedResponse) error {
	sv, err := s.load(ctx, surveyID)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	rs := make([]response, 0, len(in))
	for i, r := range in {
		vals, err := checkAnswers(ctx, sv.Definition, r.Answers, s.env())
		if err != nil {
			return fault.Validation("answers", "response %d: %v", i, err)
		}
		resp := response{Values: vals, At: now}
		if !sv.Definition.Anonymous {
			resp.Respondent, resp.Name = r.RespondentID, r.Name
		}
		rs = append(rs, resp)
	}
	return s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		keys := make([]string, 0, len(in))
		for _, r := range in {
			keys = append(keys, s.respondentKey(sv.ID, r.RespondentID))
		}
		if err := s.st.insertRespondents(ctx, sv.ID, keys); err != nil {
			return err
		}
		first, ok, err := s.st.claimSeqs(ctx, sv.ID, sv.DefVersion, int64(len(rs)))
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("the survey is not open")
		}
		for i := range rs {
			rs[i].Seq = first + int64(i)
		}
		return s.st.insertResponses(ctx, sv.ID, rs)
	})
}
