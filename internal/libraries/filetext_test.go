package libraries

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"coreportal/internal/doctext"
	dt "coreportal/internal/doctext/doctexttest"
	"coreportal/internal/jobs"
	"coreportal/internal/search"
	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

// TestFileText runs the extraction job, the version check, the crawler
// source and file_texts on both databases, with the real queue and index.
func TestFileText(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		env := newTestEnv(t, db)
		admin, engine, ns, blobs := env.admin, env.engine, env.nodes, env.blobs
		s := NewService(db, engine, ns, blobs, 64<<20, &memBin{}, nil)
		ix := search.New(db, engine)
		s.UseIndex(ix)
		q := jobs.New(db)
		s.UseTextExtraction(q, doctext.DefaultLimits())
		l, err := s.Create(ctx, admin, NewLibrary{NodeID: env.nodeID, Title: "Docs", Slug: "docs"})
		if err != nil {
			t.Fatal(err)
		}
		upload := func(name string, data []byte) FileOut {
			t.Helper()
			f, _, err := s.Upload(ctx, admin, l.ID, "", name, "", bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		runAll := func() []*jobs.Job {
			t.Helper()
			for {
				ran, err := q.RunOnce(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !ran {
					break
				}
			}
			js, _, err := q.List(ctx, jobs.Filter{Type: JobExtractText}, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			return js
		}
		found := func(word string) []string {
			t.Helper()
			res, err := ix.Search(ctx, admin, search.Request{Q: word, Type: search.TypeFile, Page: 1, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, h := range res.Hits {
				out = append(out, h.Title)
			}
			return out
		}

		doc := upload("plan.docx", dt.Docx("budget for the lighthouse"))
		upload("photo.png", []byte("\x89PNG\r\n\x1a\n"))
		bomb := upload("bomb.docx", dt.BombZip("word/document.xml", 100, 1<<20))
		js := runAll()
		if len(js) != 2 {
			t.Fatalf("jobs %d, want 2 (no job for the png)", len(js))
		}
		for _, j := range js {
			var p textJob
			_ = j.Decode(&p)
			want := jobs.StatusSucceeded
			if p.FileGUID == bomb.GUID {
				want = jobs.StatusFailed
				if !strings.Contains(j.Error, "exceeds extraction limits") || j.Attempts != 1 {
					t.Errorf("bomb job %+v", j)
				}
			}
			if j.Status != want {
				t.Errorf("job of %s: %s %s", p.Name, j.Status, j.Error)
			}
		}
		if got := found("lighthouse"); len(got) != 1 || got[0] != "plan.docx" {
			t.Fatalf("lighthouse: %v", got)
		}

		// a new version: the old text leaves the entry at once; a stale job skips
		old, err := s.st.file(ctx, l.ID, "guid", doc.GUID)
		if err != nil {
			t.Fatal(err)
		}
		upload("plan.docx", dt.Docx("budget for the windmill"))
		if got := found("lighthouse"); len(got) != 0 {
			t.Fatalf("old version's text still indexed: %v", got)
		}
		res, err := s.extractText(ctx, &jobs.Job{Payload: []byte(`{"fileGuid":"` + doc.GUID + `","versionId":"` + old.VersionID + `"}`)})
		if err != nil || !strings.Contains(res.(TextResult).Skipped, "newer version") {
			t.Fatalf("stale job: %v %v", res, err)
		}
		runAll()
		if got := found("windmill"); len(got) != 1 {
			t.Fatalf("windmill: %v", got)
		}

		// the crawler source pages within the library and queues files without text
		if _, err := db.W(ctx).ExecContext(ctx, "DELETE FROM file_texts WHERE file_guid = ?", doc.GUID); err != nil {
			t.Fatal(err)
		}
		var docs []search.Doc
		after, crawlStart := "", time.Now()
		for i := 0; i < 10; i++ {
			page, next, err := s.SearchLibrariesPage(ctx, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, page...)
			if next == "" {
				break
			}
			after = next
		}
		if len(docs) != 4 { // library + 3 files
			t.Fatalf("crawled %d docs", len(docs))
		}
		pending, _, err := q.List(ctx, jobs.Filter{Type: JobExtractText, Status: jobs.StatusPending}, 0, 100)
		if err != nil || len(pending) != 1 {
			t.Fatalf("crawler queued %d jobs (want 1: the file without text; not the failed bomb) %v", len(pending), err)
		}
		if !pending[0].RunAt.After(crawlStart.Add(crawlTextGap / 2)) {
			t.Errorf("crawler-queued extraction due at once (%s), not spaced", pending[0].RunAt)
		}
		time.Sleep(time.Until(pending[0].RunAt) + 10*time.Millisecond)
		runAll()
		if v, err := s.st.textVersion(ctx, doc.GUID); err != nil || v == "" {
			t.Fatalf("text not extracted again: %q %v", v, err)
		}
		if got := found("windmill"); len(got) != 1 {
			t.Fatalf("windmill after re-extraction: %v", got)
		}
	})
}
