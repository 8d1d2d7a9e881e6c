package nodes

import (
	"context"

	"coreportal/internal/search"
)

// SearchDoc is a node as the search index sees it.
func SearchDoc(n *Node) search.Doc {
	return search.Doc{Type: search.TypeNode, ID: n.ID, NodeID: n.ID, ContainerID: n.ID, Title: n.Title, Body: n.Description, UpdatedAt: n.UpdatedAt}
}

// SearchPage is the search crawler's source of nodes: one page, since node
// trees are small.
func (s *Service) SearchPage(ctx context.Context, after string, _ int) ([]search.Doc, string, error) {
	if after != "" {
		return nil, "", nil
	}
	all, err := s.All(ctx)
	if err != nil {
		return nil, "", err
	}
	docs := make([]search.Doc, 0, len(all))
	for _, n := range all {
		docs = append(docs, SearchDoc(n))
	}
	return docs, "", nil
}
