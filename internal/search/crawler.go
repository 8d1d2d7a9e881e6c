package search

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"coreportal/internal/store"
)

// Source pages through every searchable resource of one kind for the
// crawler: the docs after the cursor `after` (empty = from the start), at
// most limit of them, and the cursor of the last one ("" when done).
// Resources that must not be indexed (lists with searchEnabled=false and
// their items, resources in the recycle bin) are left out.
type Source struct {
	Name string
	Page func(ctx context.Context, after string, limit int) (docs []Doc, next string, err error)
}

// AddSource registers a crawler source (wiring time).
func (s *Service) AddSource(src Source) { s.sources = append(s.sources, src) }

// crawlBatch is how many resources one crawler transaction indexes.
const crawlBatch = 500

// CrawlResult is the result of a search-crawler job.
type CrawlResult struct {
	Indexed  int            `json:"indexed"`
	BySource map[string]int `json:"bySource"`
	Resumed  bool           `json:"resumed" doc:"true when the crawl went on from the checkpoint of an interrupted one"`
}

// Crawl rebuilds the index from every source, batch by batch; each batch and
// the checkpoint after it commit together, so a crawl interrupted by a crash
// resumes where it stopped.
func (s *Service) Crawl(ctx context.Context) (CrawlResult, error) {
	res := CrawlResult{BySource: map[string]int{}}
	cp, err := s.st.checkpoint(ctx)
	if err != nil {
		return res, err
	}
	start, after := 0, ""
	if cp != "" {
		res.Resumed = true
		i, rest, _ := strings.Cut(cp, ":")
		if n, err := strconv.Atoi(i); err == nil && n >= 0 && n < len(s.sources) {
			start, after = n, rest
		}
	}
	for i := start; i < len(s.sources); i++ {
		src := s.sources[i]
		for {
			docs, next, err := src.Page(ctx, after, crawlBatch)
			if err != nil {
				return res, fmt.Errorf("crawl %s: %w", src.Name, err)
			}
			err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				for _, d := range docs {
					if err := s.Put(ctx, d); err != nil {
						return err
					}
				}
				mark := ""
				if next != "" {
					mark = strconv.Itoa(i) + ":" + next
				} else if i+1 < len(s.sources) {
					mark = strconv.Itoa(i+1) + ":"
				}
				return s.st.setCheckpoint(ctx, mark, mark == "")
			})
			if err != nil {
				return res, fmt.Errorf("crawl %s: %w", src.Name, err)
			}
			res.Indexed += len(docs)
			res.BySource[src.Name] += len(docs)
			if next == "" {
				break
			}
			after = next
		}
		after = ""
	}
	slog.InfoContext(ctx, "search crawl finished", "indexed", res.Indexed, "resumed", res.Resumed)
	return res, nil
}
