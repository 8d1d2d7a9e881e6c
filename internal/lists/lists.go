package lists

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"coreportal/internal/acl"
	"coreportal/internal/auth"
	"coreportal/internal/fault"
	"coreportal/internal/field"
	"coreportal/internal/nodes"
	"coreportal/internal/search"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// NewList is the input of Create.
type NewList struct {
	NodeID      string
	Title       string
	Slug        string
	Description string
	// Fields are custom fields the list is created with (module installs):
	// validated like POST /lists/{id}/fields, created in the same transaction.
	Fields []FieldInput
}

func checkTitle(name, title string, maxLen int) (string, error) {
	return fault.RequiredText(name, title, maxLen)
}

func checkDescription(d string) error { return fault.MaxText("description", d, 4000) }

// Lists returns the lists of a node that the caller can view.
func (s *Service) Lists(ctx context.Context, p *auth.Principal, nodeID string) ([]ListOut, error) {
	if _, err := uuid.Parse(nodeID); err != nil {
		return nil, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	if err := s.acl.Require(ctx, p, nodes.Ref(nodeID), acl.View); err != nil {
		return nil, err
	}
	ls, err := s.st.listsOfNode(ctx, nodeID)
	if err != nil {
		return nil, err
	}
	out := []ListOut{}
	for _, l := range ls {
		lvl, err := s.acl.Level(ctx, p, listRef(l.ID))
		if err != nil {
			return nil, err
		}
		if lvl >= acl.View {
			out = append(out, l.out(nil))
		}
	}
	return out, nil
}

// Create adds a list to a node (edit on the node) with its system fields,
// its item table and its default view, in one transaction.
func (s *Service) Create(ctx context.Context, p *auth.Principal, in NewList) (ListOut, error) {
	if _, err := uuid.Parse(in.NodeID); err != nil {
		return ListOut{}, fault.Validation("nodeId", "nodeId must be a UUID")
	}
	title, err := checkTitle("title", in.Title, 200)
	if err != nil {
		return ListOut{}, err
	}
	if err := nodes.CheckSlug("slug", in.Slug); err != nil {
		return ListOut{}, err
	}
	if err := checkDescription(in.Description); err != nil {
		return ListOut{}, err
	}
	if err := s.acl.Require(ctx, p, nodes.Ref(in.NodeID), acl.Edit); err != nil {
		if fault.Is(err, fault.CodeNotFound) {
			return ListOut{}, fault.NotFound("node").With("field", "nodeId")
		}
		return ListOut{}, err
	}
	now := s.now().UTC()
	id := uuid.NewString()
	l := &List{ID: id, NodeID: in.NodeID, Slug: in.Slug, Title: title, Description: in.Description, FormConfig: json.RawMessage("{}"),
		SearchEnabled: true, Table: tableName(id), NextCol: 3, CreatedBy: p.UserID, CreatedAt: now, UpdatedAt: now}
	f := func(name, title, typ string, col int, req bool, order int, st field.FieldSettings) *field.Def {
		return &field.Def{ID: uuid.NewString(), ListID: id, InternalName: name, Title: title, Type: typ, Required: req,
			SortOrder: order, Settings: st, Col: col, System: true}
	}
	no, yes := false, true
	fields := []*field.Def{
		f(sysTitle, "Title", field.Text, 1, true, 0, field.FieldSettings{}),
		f(sysCreatedBy, "Created by", field.Person, 2, false, 1000, field.FieldSettings{AllowUsers: &yes, AllowGroups: &no, AllowMultiple: &no}),
		f(sysItemNumber, "Item number", field.Number, 0, false, 1001, field.FieldSettings{}),
	}
	fields[1] = creatorField(s.db.Dialect, fields[1]) // no column: composed from the row
	custom, err := s.initialFields(ctx, p, l, fields, in.Fields)
	if err != nil {
		return ListOut{}, err
	}
	fields = append(fields, custom...)
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if _, err := s.st.listBySlug(ctx, l.NodeID, l.Slug); err == nil {
			return fault.Conflict("the node already has a list with slug %q", l.Slug).With("field", "slug")
		}
		if err := s.st.insertList(ctx, l); err != nil {
			if store.IsUnique(err) {
				return fault.Conflict("the node already has a list with slug %q", l.Slug).With("field", "slug")
			}
			return err
		}
		for _, fd := range fields {
			if err := s.st.insertField(ctx, fd, now); err != nil {
				return err
			}
		}
		if err := s.st.createItemTable(ctx, l, fields); err != nil {
			return err
		}
		if err := s.insertDefaultView(ctx, l, now); err != nil {
			return err
		}
		node := nodes.Ref(l.NodeID)
		if err := s.acl.Register(ctx, listRef(l.ID), &node); err != nil {
			return err
		}
		if s.index != nil {
			return s.index.Put(ctx, listDoc(l))
		}
		return nil
	})
	if err != nil {
		return ListOut{}, err
	}
	return l.out(fields), nil
}

// Get returns a list with its fields (view on the list).
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (ListOut, error) {
	sc, err := s.open(ctx, p, id, acl.View)
	if err != nil {
		return ListOut{}, err
	}
	return sc.list.out(sc.fields), nil
}

// ListPatch is the input of Update; nil fields stay.
type ListPatch struct {
	Title             *string
	Slug              *string
	Description       *string
	FormConfig        json.RawMessage
	VersioningEnabled *bool
	SearchEnabled     *bool
}

// Update changes a list (view on it, edit on its node, as SPEC.md's "Right on
// node" says); changing versioningEnabled or searchEnabled is for
// administrators (sending the stored value back is not a change).
func (s *Service) Update(ctx context.Context, p *auth.Principal, id string, in ListPatch) (ListOut, error) {
	sc, err := s.openWithNodeRight(ctx, p, id, acl.Edit)
	if err != nil {
		return ListOut{}, err
	}
	l := sc.list
	if (in.VersioningEnabled != nil && *in.VersioningEnabled != l.VersioningEnabled ||
		in.SearchEnabled != nil && *in.SearchEnabled != l.SearchEnabled) && !p.IsAdmin {
		return ListOut{}, fault.Forbidden("only administrators can change versioningEnabled and searchEnabled")
	}
	var cols []string // only the changed columns are written (never next_col)
	if in.Title != nil {
		if l.Title, err = checkTitle("title", *in.Title, 200); err != nil {
			return ListOut{}, err
		}
		cols = append(cols, "title")
	}
	if in.Slug != nil {
		if err := nodes.CheckSlug("slug", *in.Slug); err != nil {
			return ListOut{}, err
		}
		l.Slug = *in.Slug
		cols = append(cols, "slug")
	}
	if in.Description != nil {
		if err := checkDescription(*in.Description); err != nil {
			return ListOut{}, err
		}
		l.Description = *in.Description
		cols = append(cols, "description")
	}
	if len(in.FormConfig) > 0 && string(in.FormConfig) != "null" {
		fc, err := checkFormConfig(in.FormConfig)
		if err != nil {
			return ListOut{}, err
		}
		if err := checkFormCodeChange(p.IsAdmin, l.FormConfig, fc); err != nil {
			return ListOut{}, err
		}
		l.FormConfig = fc
		cols = append(cols, "form_config")
	}
	if in.VersioningEnabled != nil {
		l.VersioningEnabled = *in.VersioningEnabled
		cols = append(cols, "versioning_enabled")
	}
	if in.SearchEnabled != nil {
		l.SearchEnabled = *in.SearchEnabled
		cols = append(cols, "search_enabled")
	}
	l.UpdatedAt = s.now().UTC()
	err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
		if other, err := s.st.listBySlug(ctx, l.NodeID, l.Slug); err == nil && other != l.ID {
			return fault.Conflict("the node already has a list with slug %q", l.Slug).With("field", "slug")
		}
		s.schemaChanged(ctx, l.ID)
		if err := s.st.updateList(ctx, l, cols); err != nil {
			return err
		}
		if in.Slug != nil && in.SearchEnabled == nil && s.index != nil && l.SearchEnabled {
			// items carry the list's slug in their path: one update renames them all
			if ok, err := search.Rename(ctx, s.index, l.ID, l.Slug); ok || err != nil {
				if err != nil {
					return err
				}
				return s.index.Put(ctx, listDoc(l))
			}
		}
		if in.SearchEnabled != nil || in.Slug != nil {
			// searchEnabled adds or removes them all
			return s.reindexList(ctx, &schema{list: l, fields: sc.fields})
		}
		if s.index != nil && l.SearchEnabled {
			return s.index.Put(ctx, listDoc(l))
		}
		return nil
	})
	if err != nil {
		return ListOut{}, err
	}
	return l.out(sc.fields), nil
}

// FormConfig is form_config: keys new, view, edit.
type FormConfig map[string]FormPart

// FormPart customises one form.
type FormPart struct {
	Script           *string       `json:"script,omitempty"`
	ShowStandardForm *bool         `json:"showStandardForm,omitempty"`
	WebParts         []FormWebPart `json:"webParts,omitempty"`
}

// FormWebPart is one web part placed on a form.
type FormWebPart struct {
	InstanceID    string          `json:"instanceId"`
	DefinitionKey string          `json:"definitionKey"`
	Title         string          `json:"title,omitempty"`
	Properties    json.RawMessage `json:"properties,omitempty"`
	Placement     string          `json:"placement,omitempty"`
}

const maxScript = 65536

// WebPartHTML is the built-in web part that shows a block of HTML
// (properties.html); the HTML is sanitised when stored, like html_text values,
// so clients render it as HTML.
const WebPartHTML = "core.html"

// sanitiseHTMLPart sanitises properties.html of a core.html web part.
func sanitiseHTMLPart(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return raw, nil
	}
	var props map[string]json.RawMessage
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, fmt.Errorf("web part properties: %w", err)
	}
	h, ok := props["html"]
	if !ok {
		return raw, nil
	}
	var html string
	if err := json.Unmarshal(h, &html); err != nil {
		return nil, fmt.Errorf("web part html: %w", err)
	}
	clean, err := json.Marshal(field.SanitizeHTML(html))
	if err != nil {
		return nil, fmt.Errorf("web part html: %w", err)
	}
	props["html"] = clean
	return json.Marshal(props)
}

func checkFormConfig(raw json.RawMessage) (json.RawMessage, error) {
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, fault.Validation("formConfig", "formConfig must be an object with keys new, view, edit")
	}
	out := FormConfig{}
	for k, v := range parts {
		if k != "new" && k != "view" && k != "edit" {
			return nil, fault.Validation("formConfig."+k, "formConfig keys are new, view and edit")
		}
		if string(v) == "null" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(string(v)))
		dec.DisallowUnknownFields()
		var fp FormPart
		if err := dec.Decode(&fp); err != nil {
			return nil, fault.Validation("formConfig."+k, "formConfig.%s must be { script, showStandardForm, webParts[] }: %s", k, web.DescribeJSON(v, err).Error())
		}
		if fp.Script != nil && utf8.RuneCountInString(*fp.Script) > maxScript {
			return nil, fault.Validation("formConfig."+k+".script", "script must have at most %d characters", maxScript)
		}
		if fp.ShowStandardForm == nil {
			t := true
			fp.ShowStandardForm = &t
		}
		for i, wp := range fp.WebParts {
			if _, err := uuid.Parse(wp.InstanceID); err != nil {
				return nil, fault.Validation("formConfig."+k+".webParts.instanceId", "webParts[%d].instanceId must be a UUID", i)
			}
			if strings.TrimSpace(wp.DefinitionKey) == "" || len(wp.DefinitionKey) > 200 {
				return nil, fault.Validation("formConfig."+k+".webParts.definitionKey", "webParts[%d].definitionKey is required", i)
			}
			if wp.Placement == "" {
				fp.WebParts[i].Placement = "after"
			} else if wp.Placement != "before" && wp.Placement != "after" {
				return nil, fault.Validation("formConfig."+k+".webParts.placement", "webParts[%d].placement must be before or after", i)
			}
			if len(wp.Properties) > 0 && wp.Properties[0] != '{' && string(wp.Properties) != "null" {
				return nil, fault.Validation("formConfig."+k+".webParts.properties", "webParts[%d].properties must be an object", i)
			}
			if wp.DefinitionKey == WebPartHTML {
				props, err := sanitiseHTMLPart(wp.Properties)
				if err != nil {
					return nil, fault.Validation("formConfig."+k+".webParts.properties", "webParts[%d].properties.html must be a string", i)
				}
				fp.WebParts[i].Properties = props
			}
		}
		out[k] = fp
	}
	j, err := json.Marshal(out)
	return j, err
}

// ResolveSlug finds a list by node and slug (routes resolver).
func (s *Service) ResolveSlug(ctx context.Context, nodeID, slug string) (string, error) {
	id, err := s.st.listBySlug(ctx, nodeID, slug)
	if store.IsNotFound(err) {
		return "", fault.NotFound("list")
	}
	return id, err
}

// SlugOf returns the node and slug of a list (routes, menu links).
func (s *Service) SlugOf(ctx context.Context, id string) (string, string, error) {
	if _, err := uuid.Parse(id); err != nil {
		return "", "", fault.NotFound("list")
	}
	l, err := s.st.list(ctx, id)
	if store.IsNotFound(err) {
		return "", "", fault.NotFound("list")
	}
	if err != nil {
		return "", "", err
	}
	return l.NodeID, l.Slug, nil
}
