package surveys

import (
	"context"
	"fmt"
	"strings"

	"coreportal/internal/search"
)

// Drafts are not indexed: viewers of a node may not see them (a draft needs
// edit), so a survey enters the index when published and stays while open
// or closed.

func surveyDoc(sv *Survey) search.Doc {
	parts := []string{sv.Description}
	for _, q := range sv.Definition.Questions {
		parts = append(parts, q.Title)
	}
	return search.Doc{Type: search.TypeSurvey, ID: sv.ID, NodeID: sv.NodeID, ContainerID: sv.ID, Slug: sv.Slug,
		Title: sv.Title, Body: strings.Join(parts, "\n"), UpdatedAt: sv.UpdatedAt}
}

// index puts a published survey into the index and keeps drafts out.
func (s *Service) index(ctx context.Context, sv *Survey) error {
	if s.Index == nil {
		return nil
	}
	if sv.Status == StatusDraft {
		return s.Index.Remove(ctx, sv.ID)
	}
	return s.Index.Put(ctx, surveyDoc(sv))
}

func (s *Service) unindex(ctx context.Context, id string) error {
	if s.Index == nil {
		return nil
	}
	return s.Index.Remove(ctx, id)
}

// SearchPage is the crawler source of surveys: live, published surveys after the id cursor.
func (s *Service) SearchPage(ctx context.Context, after string, limit int) ([]search.Doc, string, error) {
	q := `SELECT ` + surveyCols + ` FROM surveys WHERE deleted_at IS NULL AND status <> ?`
	args := []any{StatusDraft}
	if after != "" {
		q += " AND id > ?"
		args = append(args, after)
	}
	rows, err := s.DB.Q(ctx).QueryContext(ctx, q+" ORDER BY id LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, "", fmt.Errorf("crawl surveys: %w", err)
	}
	defer rows.Close()
	var docs []search.Doc
	last := ""
	for rows.Next() {
		sv, err := scanSurvey(rows)
		if err != nil {
			return nil, "", fmt.Errorf("crawl surveys: %w", err)
		}
		docs = append(docs, surveyDoc(sv))
		last = sv.ID
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("crawl surveys: %w", err)
	}
	if len(docs) < limit {
		last = ""
	}
	return docs, last, nil
}
