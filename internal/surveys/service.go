package surveys

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/blob"
	"coreportal/internal/fault"
	"coreportal/internal/jobs"
	"coreportal/internal/menu"
	"coreportal/internal/nodes"
	"coreportal/internal/recyclebin"
	"coreportal/internal/search"
	"coreportal/internal/store"
)

// Deps are the services the surveys capability uses.
type Deps struct {
	DB    *store.DB
	ACL   *acl.Engine
	Nodes *nodes.Service
	Menu  *menu.Service
	Bin   *recyclebin.Service
	Jobs  *jobs.Queue
	Blobs blob.Store
	// UserName returns the display name of an existing (non-system) user,
	// fault.NotFound otherwise.
	UserName func(ctx context.Context, id string) (string, error)
	// Secret keys the respondent marks (HMAC-SHA256 of survey and user), so
	// that anonymous surveys enforce one answer per user without storing who.
	Secret []byte
	// Index is the search index (nil: not indexed).
	Index search.Index
}

// Service holds the rules of surveys.
type Service struct {
	Deps
	st  *Store
	now func() time.Time
}

// New builds the service and registers its export job, its recycle-bin kind
// and the cleanup of exported files with the job retention.
func New(d Deps) *Service {
	s := &Service{Deps: d, st: &Store{db: d.DB}, now: time.Now}
	d.Jobs.Handle(exportJob, s.runExport)
	d.Jobs.OnPurge(exportJob, s.purgeExports)
	d.Bin.RegisterKind(binKind, s.restore, s.purgeEntry)
	return s
}

const binKind = "survey"

func ref(id string) acl.Ref { return acl.Ref{Type: acl.Survey, ID: id} }

// respondentKey is hex HMAC-SHA256(secret, survey id ":" user id).
func (s *Service) respondentKey(surveyID, userID string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte(surveyID + ":" + userID))
	return hex.EncodeToString(m.Sum(nil))
}

// load reads a survey (fault.NotFound when absent or in the recycle bin).
func (s *Service) load(ctx context.Context, id string) (*Survey, error) {
	id, ok := store.CanonicalUUID(id)
	if !ok {
		return nil, fault.Validation("id", "the survey id must be a UUID")
	}
	sv, err := s.st.survey(ctx, id)
	if store.IsNotFound(err) {
		return nil, fault.NotFound("survey")
	}
	return sv, err
}

// open loads a survey and checks that p has at least min on it: 404 when the
// survey does not exist, 403 when it exists and p lacks the level.
func (s *Service) open(ctx context.Context, p *auth.Principal, id string, min acl.Level) (*Survey, acl.Level, error) {
	sv, err := s.load(ctx, id)
	if err != nil {
		return nil, acl.None, err
	}
	lvl, err := s.ACL.Level(ctx, p, ref(sv.ID))
	if err != nil {
		return nil, acl.None, err
	}
	if lvl < min {
		return nil, lvl, fault.Forbidden("%s right on this survey is required", min)
	}
	return sv, lvl, nil
}

// nodeLevel checks that the node exists (404) and returns p's level on it.
func (s *Service) nodeLevel(ctx context.Context, p *auth.Principal, nodeID string) (acl.Level, error) {
	if _, err := s.Nodes.Lookup(ctx, nodeID); err != nil {
		return acl.None, err
	}
	return s.ACL.Level(ctx, p, nodes.Ref(nodeID))
}

func (s *Service) hasAnswered(ctx context.Context, p *auth.Principal, surveyID string) (bool, error) {
	m, err := s.st.answered(ctx, []string{surveyID}, []string{s.respondentKey(surveyID, p.UserID)})
	return m[surveyID], err
}

func (s *Service) card(ctx context.Context, p *auth.Principal, sv *Survey, lvl acl.Level) (SurveyCard, error) {
	answered, err := s.hasAnswered(ctx, p, sv.ID)
	if err != nil {
		return SurveyCard{}, err
	}
	return SurveyCard{ID: sv.ID, NodeID: sv.NodeID, Slug: sv.Slug, Title: sv.Title, Description: sv.Description, AddToSideMenu: sv.AddToSideMenu,
		Status: sv.Status, Anonymous: sv.Definition.Anonymous, Definition: sv.Definition, AnswerCount: countFor(sv, lvl), Locked: sv.AnswerCount > 0,
		HasAnswered: answered, CanEdit: lvl >= acl.Edit, CanDelete: lvl >= acl.Delete, CreatedAt: sv.CreatedAt, UpdatedAt: sv.UpdatedAt}, nil
}

// countFor is the response count shown to a caller: results need edit on
// the survey, so viewers get null.
func countFor(sv *Survey, lvl acl.Level) *int64 {
	if lvl < acl.Edit {
		return nil
	}
	n := sv.AnswerCount
	return &n
}

// Catalog lists the surveys of a node the caller can view (view on the
// node); drafts only for callers with edit on them.
func (s *Service) Catalog(ctx context.Context, p *auth.Principal, nodeID string) (SurveyCatalog, error) {
	nodeID, ok := store.CanonicalUUID(nodeID)
	if !ok {
		return SurveyCatalog{}, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	nl, err := s.nodeLevel(ctx, p, nodeID)
	if err != nil {
		return SurveyCatalog{}, err
	}
	if nl < acl.View {
		return SurveyCatalog{}, fault.Forbidden("view right on this node is required")
	}
	all, err := s.st.ofNode(ctx, nodeID)
	if err != nil {
		return SurveyCatalog{}, err
	}
	out := SurveyCatalog{CanCreate: nl >= acl.Edit, Items: []SurveySummary{}}
	var ids, keys []string
	for _, sv := range all {
		lvl, err := s.ACL.Level(ctx, p, ref(sv.ID))
		if err != nil {
			return SurveyCatalog{}, err
		}
		if lvl < acl.View || sv.Status == StatusDraft && lvl < acl.Edit {
			continue
		}
		out.Items = append(out.Items, SurveySummary{ID: sv.ID, NodeID: sv.NodeID, Slug: sv.Slug, Title: sv.Title, Status: sv.Status,
			Anonymous: sv.Definition.Anonymous, AddToSideMenu: sv.AddToSideMenu, AnswerCount: countFor(sv, lvl), CanEdit: lvl >= acl.Edit,
			CreatedAt: sv.CreatedAt, UpdatedAt: sv.UpdatedAt})
		ids = append(ids, sv.ID)
		keys = append(keys, s.respondentKey(sv.ID, p.UserID))
	}
	answered, err := s.st.answered(ctx, ids, keys)
	if err != nil {
		return SurveyCatalog{}, err
	}
	for i := range out.Items {
		out.Items[i].HasAnswered = answered[out.Items[i].ID]
	}
	return out, nil
}

// NewSurvey is the input of Create.
type NewSurvey struct {
	NodeID        string
	Slug          string
	Title         string
	Description   string
	AddToSideMenu bool
	Definition    SurveyDefinition
}

func checkSlug(slug string) error {
	if err := nodes.CheckSlug("slug", slug); err != nil {
		return err
	}
	if slug == "new" {
		return fault.Validation("slug", "slug \"new\" is reserved for the route of a new survey")
	}
	return nil
}

func slugTaken(slug string) error {
	return fault.Conflict("the node already has a survey with slug %q", slug).With("field", "slug")
}

// Create adds a draft survey to a node (edit on the node).
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewSurvey) (SurveyCard, error) {
	nodeID, ok := store.CanonicalUUID(in.NodeID)
	if !ok {
		return SurveyCard{}, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	if err := checkSlug(in.Slug); err != nil {
		return SurveyCard{}, err
	}
	title, err := checkTitle(in.Title)
	if err != nil {
		return SurveyCard{}, err
	}
	desc, err := checkDescription(in.Description)
	if err != nil {
		return SurveyCard{}, err
	}
	def, err := checkDefinition(in.Definition)
	if err != nil {
		return SurveyCard{}, err
	}
	nl, err := s.nodeLevel(ctx, p, nodeID)
	if err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return SurveyCard{}, fault.NotFound("node").With("field", "nodeId")
		}
		return SurveyCard{}, err
	}
	if nl < acl.Edit {
		return SurveyCard{}, fault.Forbidden("edit right on the node is required to create a survey")
	}
	now := s.now().UTC()
	sv := &Survey{ID: uuid.NewString(), NodeID: nodeID, Slug: in.Slug, Title: title, Description: desc, AddToSideMenu: in.AddToSideMenu,
		Definition: def, DefVersion: 1, Status: StatusDraft, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	if err := s.insert(ctx, p, sv); err != nil {
		return SurveyCard{}, err
	}
	return s.card(ctx, p, sv, acl.Delete)
}

// insert stores a new survey, registers it under its node, adds its menu
// item and emits survey.created (p is the creator).
func (s *Service) insert(ctx context.Context, p *auth.Principal, sv *Survey) error {
	return s.DB.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if _, err := s.st.idBySlug(ctx, sv.NodeID, sv.Slug); err == nil {
			return slugTaken(sv.Slug)
		}
		if err := s.st.insertSurvey(ctx, sv); err != nil {
			if store.IsUnique(err) {
				return slugTaken(sv.Slug)
			}
			return err
		}
		node := nodes.Ref(sv.NodeID)
		if err := s.ACL.Register(ctx, ref(sv.ID), &node); err != nil {
			return err
		}
		if err := s.emit(ctx, "survey.created", sv, p); err != nil {
			return err
		}
		return s.syncMenu(ctx, sv, sv.AddToSideMenu)
	})
}

// syncMenu keeps the survey's side-menu item in step (added, renamed, removed).
func (s *Service) syncMenu(ctx context.Context, sv *Survey, present bool) error {
	link := ""
	if present {
		np, err := s.Nodes.SlugPath(ctx, sv.NodeID)
		if err != nil {
			return err
		}
		link = np + "/surveys/" + sv.Slug
	}
	return s.Menu.SyncBound(ctx, sv.NodeID, "survey", sv.ID, sv.Title, link, present)
}

// Get returns the card (view on the survey; a draft needs edit).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (SurveyCard, error) {
	sv, lvl, err := s.openCard(ctx, p, id)
	if err != nil {
		return SurveyCard{}, err
	}
	return s.card(ctx, p, sv, lvl)
}

// Openable answers as Get does without building the card: nil, or Get's
// 404 or 403 (routes answer for a survey as its own GET does).
func (s *Service) Openable(ctx context.Context, p *auth.Principal, id string) error {
	_, _, err := s.openCard(ctx, p, id)
	return err
}

// openCard loads a survey whose card p may read: view on it, edit on a draft.
func (s *Service) openCard(ctx context.Context, p *auth.Principal, id string) (*Survey, acl.Level, error) {
	sv, lvl, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return nil, lvl, err
	}
	if sv.Status == StatusDraft && lvl < acl.Edit {
		return nil, lvl, fault.Forbidden("the survey is a draft: edit right on it is required")
	}
	return sv, lvl, nil
}

// Take returns the taking view: view on the survey and its node, status open.
func (s *Service) Take(ctx context.Context, p *auth.Principal, id string) (SurveyTakeView, error) {
	sv, err := s.openToTake(ctx, p, id)
	if err != nil {
		return SurveyTakeView{}, err
	}
	answered, err := s.hasAnswered(ctx, p, sv.ID)
	if err != nil {
		return SurveyTakeView{}, err
	}
	return SurveyTakeView{ID: sv.ID, NodeID: sv.NodeID, Slug: sv.Slug, Title: sv.Title, Description: sv.Description, Status: sv.Status,
		Anonymous: sv.Definition.Anonymous, Questions: sv.Definition.Questions, HasAnswered: answered}, nil
}

func (s *Service) openToTake(ctx context.Context, p *auth.Principal, id string) (*Survey, error) {
	sv, _, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return nil, err
	}
	nl, err := s.ACL.Level(ctx, p, nodes.Ref(sv.NodeID))
	if err != nil {
		return nil, err
	}
	if nl < acl.View {
		return nil, fault.Forbidden("view right on the node of this survey is required")
	}
	if sv.Status != StatusOpen {
		return nil, fault.Conflict("the survey is %s: it does not accept answers", sv.Status)
	}
	return sv, nil
}
