package surveys

import (
	"context"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/store"
)

// SubmitResult is the answer of POST /surveys/{id}/submit.
type SurveySubmitResult struct {
	SurveyID  string `json:"surveyId" format:"uuid"`
	Submitted bool   `json:"submitted"`
}

func (s *Service) env() answerEnv { return answerEnv{userName: s.UserName} }

// Submit stores the caller's answers (view on the survey and its node,
// status open). One response per user: a second one is 409, also when two
// arrive at once (the respondent mark's primary key decides). In an
// anonymous survey the response row holds no user id, no name and only the
// day of submission; the mark is an HMAC of survey and user.
func (s *Service) Submit(ctx context.Context, p *auth.Principal, id string, answers map[string]any) (SurveySubmitResult, error) {
	sv, err := s.openToTake(ctx, p, id)
	if err != nil {
		return SurveySubmitResult{}, err
	}
	if answers == nil {
		return SurveySubmitResult{}, fault.Validation("answers", "answers is required")
	}
	vals, err := checkAnswers(ctx, sv.Definition, answers, s.env())
	if err != nil {
		return SurveySubmitResult{}, err
	}
	r := response{Values: vals, At: s.now().UTC()}
	if sv.Definition.Anonymous {
		r.At = r.At.Truncate(24 * time.Hour)
	} else {
		r.Respondent, r.Name = p.UserID, p.DisplayName
		if r.Name == "" {
			r.Name = p.Login
		}
	}
	err = s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.insertRespondent(ctx, sv.ID, s.respondentKey(sv.ID, p.UserID)); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("you have already answered this survey")
			}
			return err
		}
		seq, ok, err := s.st.claimSeqs(ctx, sv.ID, sv.DefVersion, 1)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("the survey was closed or changed meanwhile; reload it")
		}
		r.Seq = seq
		if err := s.emit(ctx, "survey.answered", sv, p); err != nil {
			return err
		}
		return s.st.insertResponses(ctx, sv.ID, []response{r})
	})
	if err != nil {
		return SurveySubmitResult{}, err
	}
	return SurveySubmitResult{SurveyID: sv.ID, Submitted: true}, nil
}
