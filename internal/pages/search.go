package pages

import (
	"context"
	"fmt"

	"coreportal/internal/search"
)

// UseIndex connects the search index (wiring).
func (s *Service) UseIndex(ix search.Index) { s.index = ix }

func pageDoc(pg *Page) search.Doc {
	return search.Doc{Type: search.TypePage, ID: pg.ID, NodeID: pg.NodeID, ContainerID: pg.ID, Slug: pg.Slug,
		Title: pg.Title, Body: search.PlainText(pg.Content), UpdatedAt: pg.UpdatedAt}
}

func (s *Service) indexPage(ctx context.Context, pg *Page) error {
	if s.index == nil {
		return nil
	}
	return s.index.Put(ctx, pageDoc(pg))
}

func (s *Service) unindex(ctx context.Context, id string) error {
	if s.index == nil {
		return nil
	}
	return s.index.Remove(ctx, id)
}

// SearchPage is the crawler source of pages: live pages after the id cursor.
func (s *Service) SearchPage(ctx context.Context, after string, limit int) ([]search.Doc, string, error) {
	q := "SELECT " + pageColumns + " FROM pages WHERE deleted_at IS NULL"
	args := []any{}
	if after != "" {
		q += " AND id > ?"
		args = append(args, after)
	}
	rows, err := s.db.Q(ctx).QueryContext(ctx, q+" ORDER BY id LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, "", fmt.Errorf("crawl pages: %w", err)
	}
	defer rows.Close()
	var docs []search.Doc
	last := ""
	for rows.Next() {
		pg, err := scanPage(rows)
		if err != nil {
			return nil, "", fmt.Errorf("crawl pages: %w", err)
		}
		docs = append(docs, pageDoc(pg))
		last = pg.ID
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("crawl pages: %w", err)
	}
	if len(docs) < limit {
		last = ""
	}
	return docs, last, nil
}
