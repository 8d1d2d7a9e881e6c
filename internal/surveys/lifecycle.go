package surveys

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/nodes"
	"coreportal/internal/recyclebin"
	"coreportal/internal/store"
)

// Patch is the input of Update; nil fields stay.
type Patch struct {
	Title         *string
	Slug          *string
	Description   *string
	AddToSideMenu *bool
	Definition    *SurveyDefinition
}

// Update changes metadata and the definition (edit on the survey). Once the
// survey has answers its definition is locked: a different definition is
// refused with 409, the same one is accepted; title, slug, description and
// addToSideMenu stay editable.
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, in Patch) (SurveyCard, error) {
	sv, lvl, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyCard{}, err
	}
	if in.Title != nil {
		if sv.Title, err = checkTitle(*in.Title); err != nil {
			return SurveyCard{}, err
		}
	}
	if in.Slug != nil {
		if err := checkSlug(*in.Slug); err != nil {
			return SurveyCard{}, err
		}
		sv.Slug = *in.Slug
	}
	if in.Description != nil {
		if sv.Description, err = checkDescription(*in.Description); err != nil {
			return SurveyCard{}, err
		}
	}
	wasInMenu := sv.AddToSideMenu
	if in.AddToSideMenu != nil {
		sv.AddToSideMenu = *in.AddToSideMenu
	}
	var def *SurveyDefinition
	if in.Definition != nil {
		d, err := checkDefinition(*in.Definition)
		if err != nil {
			return SurveyCard{}, err
		}
		if !sameDefinition(d, sv.Definition) {
			if sv.AnswerCount > 0 {
				return SurveyCard{}, lockedErr()
			}
			def = &d
		}
	}
	now := s.now().UTC()
	sv.UpdatedAt = now
	err = s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if other, err := s.st.idBySlug(ctx, sv.NodeID, sv.Slug); err == nil && other != sv.ID {
			return slugTaken(sv.Slug)
		}
		if err := s.st.updateMeta(ctx, sv); err != nil {
			if store.IsUnique(err) {
				return slugTaken(sv.Slug)
			}
			return err
		}
		if def != nil {
			ok, err := s.st.updateDefinition(ctx, sv.ID, *def, now)
			if err != nil {
				return err
			}
			if !ok {
				return lockedErr()
			}
			sv.Definition = *def
			sv.DefVersion++
		}
		if err := s.index(ctx, sv); err != nil {
			return err
		}
		if sv.AddToSideMenu || wasInMenu {
			return s.syncMenu(ctx, sv, sv.AddToSideMenu)
		}
		return nil
	})
	if err != nil {
		return SurveyCard{}, err
	}
	return s.card(ctx, p, sv, lvl)
}

func lockedErr() error {
	return fault.Conflict("the survey has answers: its questions can no longer change (title, slug, description and addToSideMenu stay editable; duplicate the survey to change its questions)").
		With("field", "definition")
}

// transitions of SPEC.md "States and transitions / Survey".
var transitions = map[string]struct{ from, to string }{
	"publish": {StatusDraft, StatusOpen},
	"close":   {StatusOpen, StatusClosed},
	"reopen":  {StatusClosed, StatusOpen},
}

// Transition runs publish, close or reopen (edit on the survey); any other
// move is 409. Publishing needs at least one question (400).
func (s *Service) Transition(ctx context.Context, p *auth.Principal, id, action string) (SurveyCard, error) {
	t, ok := transitions[action]
	if !ok {
		return SurveyCard{}, fault.NotFound("survey operation")
	}
	sv, lvl, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyCard{}, err
	}
	if sv.Status != t.from {
		return SurveyCard{}, fault.Conflict("cannot %s a survey that is %s (only a %s survey)", action, sv.Status, t.from)
	}
	if action == "publish" && len(sv.Definition.Questions) == 0 {
		return SurveyCard{}, fault.Validation("definition.questions", "add at least one question before publishing")
	}
	now := s.now().UTC()
	err = s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		moved, err := s.st.setStatus(ctx, sv.ID, t.from, t.to, now)
		if err != nil {
			return err
		}
		if !moved {
			return fault.Conflict("the survey changed state meanwhile; reload it")
		}
		sv.Status, sv.UpdatedAt = t.to, now
		if err := s.emit(ctx, transitionEvents[action], sv, p); err != nil {
			return err
		}
		return s.index(ctx, sv)
	})
	if err != nil {
		return SurveyCard{}, err
	}
	return s.card(ctx, p, sv, lvl)
}

// Duplicate creates a new draft on the same node with the source's
// definition, a fresh slug (<slug>-copy, -copy-2, …), the title
// "<title> (copy)" and no side-menu item; the source is unchanged. Needs
// edit on the source survey (to read its questions) and on the node.
func (s *Service) Duplicate(ctx context.Context, p *auth.Principal, id string) (SurveyCard, error) {
	src, _, err := s.open(ctx, p, id, acl.Edit)
	if err != nil {
		return SurveyCard{}, err
	}
	nl, err := s.ACL.Level(ctx, p, nodes.Ref(src.NodeID))
	if err != nil {
		return SurveyCard{}, err
	}
	if nl < acl.Edit {
		return SurveyCard{}, fault.Forbidden("edit right on the node is required to create a survey")
	}
	title := src.Title + " (copy)"
	if utf8.RuneCountInString(title) > maxTitle {
		title = string([]rune(title)[:maxTitle])
	}
	now := s.now().UTC()
	cp := &Survey{ID: uuid.NewString(), NodeID: src.NodeID, Title: title, Description: src.Description, Definition: src.Definition,
		DefVersion: 1, Status: StatusDraft, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	for attempt := 0; attempt < 3; attempt++ {
		if cp.Slug, err = s.freshSlug(ctx, src.NodeID, src.Slug); err != nil {
			return SurveyCard{}, err
		}
		err = s.insert(ctx, p, cp)
		if !fault.Is(err, fault.CodeConflict) {
			break
		}
	}
	if err != nil {
		return SurveyCard{}, err
	}
	return s.card(ctx, p, cp, acl.Delete)
}

func (s *Service) freshSlug(ctx context.Context, nodeID, slug string) (string, error) {
	base := slug
	if len(base) > 85 {
		base = base[:85]
		for base[len(base)-1] == '-' {
			base = base[:len(base)-1]
		}
	}
	base += "-copy"
	taken, err := s.st.slugsLike(ctx, nodeID, base)
	if err != nil {
		return "", err
	}
	if !taken[base] {
		return base, nil
	}
	for i := 2; ; i++ {
		c := base + "-" + strconv.Itoa(i)
		if !taken[c] {
			return c, nil
		}
	}
}

type binPayload struct {
	SurveyID string `json:"surveyId"`
	Slug     string `json:"slug"`
}

// Delete moves a survey to the node's recycle bin (delete on the survey)
// and emits survey.deleted; its menu item is removed, and restored with it.
func (s *Service) Delete(ctx context.Context, p *auth.Principal, id string) error {
	sv, _, err := s.open(ctx, p, id, acl.Delete)
	if err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		now := s.now().UTC()
		if err := s.st.setDeleted(ctx, sv.ID, &now); err != nil {
			return err
		}
		if err := s.unindex(ctx, sv.ID); err != nil {
			return err
		}
		if err := s.syncMenu(ctx, sv, false); err != nil {
			return err
		}
		if err := s.emit(ctx, "survey.deleted", sv, p); err != nil {
			return err
		}
		payload, _ := json.Marshal(binPayload{SurveyID: sv.ID, Slug: sv.Slug})
		_, err := s.Bin.Add(ctx, recyclebin.Entry{NodeID: sv.NodeID, Kind: binKind, Title: sv.Title, DeletedBy: p.UserID, Payload: payload, ResourceID: sv.ID})
		return err
	})
}

func decodeBin(e recyclebin.Entry) (binPayload, error) {
	var b binPayload
	if err := json.Unmarshal(e.Payload, &b); err != nil || b.SurveyID == "" {
		return b, fmt.Errorf("survey bin payload %s: %v", e.ID, err)
	}
	return b, nil
}

// restore is the recycle-bin restore of kind survey (inside the bin's
// transaction, the restoring caller bound to ctx); emits survey.restored.
func (s *Service) restore(ctx context.Context, e recyclebin.Entry) error {
	b, err := decodeBin(e)
	if err != nil {
		return err
	}
	sv, err := s.st.surveyAny(ctx, b.SurveyID)
	if store.IsNotFound(err) {
		return fault.NotFound("survey")
	}
	if err != nil {
		return err
	}
	if other, err := s.st.idBySlug(ctx, sv.NodeID, sv.Slug); err == nil && other != sv.ID {
		return fault.Conflict("the node already has a survey with slug %q; rename it first", sv.Slug)
	}
	if err := s.st.setDeleted(ctx, sv.ID, nil); err != nil {
		return err
	}
	if err := s.index(ctx, sv); err != nil {
		return err
	}
	if err := s.emit(ctx, "survey.restored", sv, auth.FromContext(ctx)); err != nil {
		return err
	}
	if sv.AddToSideMenu {
		return s.syncMenu(ctx, sv, true)
	}
	return nil
}

// purgeEntry is the recycle-bin purge of kind survey: the survey, its
// responses, answers and counts, and its permission records go for good.
// Exported files go with the job retention.
func (s *Service) purgeEntry(ctx context.Context, e recyclebin.Entry) error {
	b, err := decodeBin(e)
	if err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if err := s.st.purge(ctx, b.SurveyID); err != nil {
			return err
		}
		return s.ACL.ForgetTree(ctx, ref(b.SurveyID))
	})
}

// ResolveSlug is the routes resolver of kind survey.
func (s *Service) ResolveSlug(ctx context.Context, nodeID, slug string) (string, error) {
	id, err := s.st.idBySlug(ctx, nodeID, slug)
	if store.IsNotFound(err) {
		return "", fault.NotFound("survey")
	}
	return id, err
}

// SlugOf is the routes slugger of kind survey.
func (s *Service) SlugOf(ctx context.Context, id string) (string, string, error) {
	sv, err := s.load(ctx, id)
	if err != nil {
		return "", "", err
	}
	return sv.NodeID, sv.Slug, nil
}
