package search

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"coreportal/internal/store"
)

// Source pages through every searchable resource of one kind for the
// crawler: the docs after the cursor `after` (empty = from the start), at
// most limit of them, and the cursor of the last one ("" when done).
// Resources that must not be indexed (lists with searchEnabled=false and
// their items, resources in the recycle bin) are left out. Count, when set,
// tells how many resources the source holds (for the progress report; an
// estimate is fine).
type Source struct {
	Name  string
	Page  func(ctx context.Context, after string, limit int) (docs []Doc, next string, err error)
	Count func(ctx context.Context) (int, error)
}

// AddSource registers a crawler source (wiring time).
func (s *Service) AddSource(src Source) { s.sources = append(s.sources, src) }

// defaultCrawlBatch is how many resources one crawler transaction indexes.
const defaultCrawlBatch = 1000

// SetCrawlBatch changes the crawler's batch size (tests observe progress with small batches).
func (s *Service) SetCrawlBatch(n int) {
	if n > 0 {
		s.crawlBatch = n
	}
}

// ReportProgress sets where a running crawl reports its progress (the job
// queue's Progress at wiring: the job's result while it runs).
func (s *Service) ReportProgress(fn func(ctx context.Context, v any) error) { s.progress = fn }

// SourceProgress is the state of one crawler source.
type SourceProgress struct {
	Name      string `json:"name"`
	Processed int    `json:"processed" doc:"resources indexed by this run"`
	Total     *int   `json:"total,omitempty" doc:"resources the source held when the run reached it (an estimate), absent when unknown"`
	Done      bool   `json:"done"`
}

// CrawlResult is the result of a search-crawler job, also written as the
// job's result while the crawl runs.
type CrawlResult struct {
	Finished   bool             `json:"finished" doc:"false while the crawl runs"`
	Indexed    int              `json:"indexed"`
	BySource   map[string]int   `json:"bySource"`
	Sources    []SourceProgress `json:"sources" doc:"processed/total per source, in crawl order"`
	Checkpoint string           `json:"checkpoint" doc:"where an interrupted crawl resumes (source index:cursor); empty when finished"`
	Resumed    bool             `json:"resumed" doc:"true when the crawl went on from the checkpoint of an interrupted one"`
	ElapsedMS  int64            `json:"elapsedMs"`
	Rights     RightsCheck      `json:"rights" doc:"the consistency pass after the sources: item and file entries whose rights differed from the access-control registry, repaired"`
}

// Crawl rebuilds the index from every source, batch by batch; each batch and
// the checkpoint after it commit together, so a crawl interrupted by a crash
// resumes where it stopped. Its consistency pass (CheckRights) then repairs
// every item and file entry whose rights differ from the access-control
// registry. Progress goes to ReportProgress after batches
// (at most once per second) and the final result once more.
func (s *Service) Crawl(ctx context.Context) (CrawlResult, error) {
	began := time.Now()
	res := CrawlResult{BySource: map[string]int{}, Sources: make([]SourceProgress, len(s.sources))}
	for i, src := range s.sources {
		res.Sources[i].Name = src.Name
	}
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
	res.Checkpoint = cp
	for i := 0; i < start; i++ {
		res.Sources[i].Done = true
	}
	var lastReport time.Time
	report := func(force bool) {
		if s.progress == nil || (!force && time.Since(lastReport) < s.progressEvery) {
			return
		}
		lastReport = time.Now()
		res.ElapsedMS = time.Since(began).Milliseconds()
		if err := s.progress(ctx, res); err != nil {
			slog.WarnContext(ctx, "search crawl progress", "err", err)
		}
	}
	for i := start; i < len(s.sources); i++ {
		src := s.sources[i]
		if src.Count != nil {
			if n, err := src.Count(ctx); err == nil {
				res.Sources[i].Total = &n
			}
		}
		report(true)
		for {
			docs, next, err := src.Page(ctx, after, s.crawlBatch)
			if err != nil {
				return res, fmt.Errorf("crawl %s: %w", src.Name, err)
			}
			mark := ""
			if next != "" {
				mark = strconv.Itoa(i) + ":" + next
			} else if i+1 < len(s.sources) {
				mark = strconv.Itoa(i+1) + ":"
			}
			err = s.db.InTx(ctx, func(ctx context.Context, _ *store.Tx) error {
				if err := s.putDocs(ctx, docs); err != nil {
					return err
				}
				return s.st.setCheckpoint(ctx, mark, mark == "")
			})
			if err != nil {
				return res, fmt.Errorf("crawl %s: %w", src.Name, err)
			}
			res.Indexed += len(docs)
			res.BySource[src.Name] += len(docs)
			res.Sources[i].Processed += len(docs)
			res.Checkpoint = mark
			if next == "" {
				break
			}
			report(false)
			after = next
		}
		res.Sources[i].Done = true
		after = ""
	}
	// entries no source wrote (a resource gone without its entry) or whose
	// chain went stale are set right before the fold
	if res.Rights, err = s.CheckRights(ctx); err != nil {
		return res, fmt.Errorf("crawl: %w", err)
	}
	// the crawl rewrote every entry: fold them into the count bitmaps now
	// rather than leave large totals to row counts until the worker has
	if err := s.FoldBits(ctx); err != nil {
		return res, fmt.Errorf("crawl: %w", err)
	}
	res.Finished = true
	res.ElapsedMS = time.Since(began).Milliseconds()
	slog.InfoContext(ctx, "search crawl finished", "indexed", res.Indexed, "resumed", res.Resumed, "elapsedMs", res.ElapsedMS)
	return res, nil
}
