package test

import (
	"strings"
	"testing"
	"time"

	dt "coreportal/internal/doctext/doctexttest"
	"coreportal/test/kit"
)

// textJobs returns the search.extractText jobs by the guid of their file.
func textJobs(t *testing.T, admin *kit.Client) map[string][]map[string]any {
	t.Helper()
	var list []map[string]any
	admin.Do(t, "GET", "/jobs?type=search.extractText&limit=100", nil).Expect(t, 200).Into(t, &list)
	out := map[string][]map[string]any{}
	for _, j := range list {
		guid := j["payload"].(map[string]any)["fileGuid"].(string)
		out[guid] = append(out[guid], j)
	}
	return out
}

// waitTextJobs waits until no extraction job is pending or running.
func waitTextJobs(t *testing.T, admin *kit.Client) map[string][]map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		jobs := textJobs(t, admin)
		busy := false
		for _, js := range jobs {
			for _, j := range js {
				busy = busy || j["status"] == "pending" || j["status"] == "running"
			}
		}
		if !busy {
			return jobs
		}
		if time.Now().After(deadline) {
			t.Fatalf("extraction jobs still busy: %v", jobs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSearchDocumentText covers issue #12 item 5 on both databases: the
// text inside each supported format is found with a snippet once its job
// ran; a zip bomb fails its own job only; a new version replaces the text;
// the crawler keeps the text.
func TestSearchDocumentText(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		reader, readerID := s.CreateUser(t, "dtreader", false)
		outsider, _ := s.CreateUser(t, "dtoutsider", false)
		f := newLibFixture(t, s, "doctext")
		grantLib(t, admin, "node", f.nodeID, readerID, "view", nil)

		docs := []struct{ name, word string }{
			{"notes.txt", "aquamarine"}, {"readme.md", "bergamot"}, {"table.csv", "cinnabar"}, {"page.html", "dandelion"},
			{"letter.docx", "эвкалипт"}, {"sheet.xlsx", "fuchsia"}, {"deck.pptx", "gardenia"}, {"text.odt", "heliotrope"},
			{"scan.pdf", "indigo"},
		}
		content := map[string][]byte{
			"notes.txt":   []byte("Plain notes mention aquamarine once."),
			"readme.md":   []byte("# Readme\n\nThe **bergamot** section."),
			"table.csv":   []byte("colour,count\ncinnabar,3\n"),
			"page.html":   []byte("<html><body><p>A field of dandelion flowers</p><script>var hiddenscript=1</script></body></html>"),
			"letter.docx": dt.Docx("Письмо про эвкалипт и пальмы"),
			"sheet.xlsx":  dt.Xlsx(map[string]string{"A1": "colour", "B1": "fuchsia"}),
			"deck.pptx":   dt.Pptx("first slide", "second slide gardenia"),
			"text.odt":    dt.Odt("Open document heliotrope"),
			"scan.pdf":    dt.PDF("BT /F1 12 Tf 72 712 Td (A PDF about indigo dye) Tj ET"),
		}
		guids := map[string]string{}
		for _, d := range docs {
			guids[d.name] = f.put(t, admin, "", d.name, content[d.name], 201)["guid"].(string)
		}
		bomb := f.put(t, admin, "", "quarterly bomb.docx", dt.BombZip("word/document.xml", 100, 300<<20), 201)["guid"].(string)
		jobs := waitTextJobs(t, admin)

		t.Run("each format found by a word of its content, with a snippet", func(t *testing.T) {
			for _, d := range docs {
				js := jobs[guids[d.name]]
				if len(js) != 1 || js[0]["status"] != "succeeded" {
					t.Fatalf("%s: jobs %v", d.name, js)
				}
				hits, meta := searchHits(t, reader, d.word)
				if len(hits) != 1 || hits[0]["type"] != "file" || hits[0]["title"] != d.name || meta["total"] != 1.0 {
					t.Fatalf("%s: search %q: %v", d.name, d.word, hitTitles(hits))
				}
				if sn := hits[0]["snippet"].(string); !strings.Contains(sn, "<mark>"+d.word+"</mark>") {
					t.Errorf("%s: snippet %q", d.name, sn)
				}
			}
			if hits, _ := searchHits(t, reader, "hiddenscript"); len(hits) != 0 {
				t.Errorf("script text indexed: %v", hitTitles(hits))
			}
			if hits, _ := searchHits(t, outsider, "aquamarine"); len(hits) != 0 {
				t.Errorf("outsider sees document text: %v", hitTitles(hits))
			}
		})

		t.Run("zip bomb fails its job only", func(t *testing.T) {
			js := jobs[bomb]
			if len(js) != 1 || js[0]["status"] != "failed" || !strings.Contains(js[0]["error"].(string), "exceeds extraction limits") {
				t.Fatalf("bomb job %v", js)
			}
			if js[0]["attempts"] != 1.0 {
				t.Errorf("bomb job retried: %v", js[0])
			}
			hits, _ := searchHits(t, reader, "quarterly")
			if len(hits) != 1 || hits[0]["title"] != "quarterly bomb.docx" {
				t.Fatalf("bomb file by name: %v", hitTitles(hits))
			}
			s.Anon().Do(t, "GET", "/health", nil).Expect(t, 200)
			resp, body := f.get(t, admin, bomb, nil)
			if resp.StatusCode != 200 || len(body) == 0 {
				t.Fatalf("bomb download %d", resp.StatusCode)
			}
		})

		t.Run("a new version replaces the text", func(t *testing.T) {
			f.put(t, admin, "", "notes.txt", []byte("Rewritten notes about zucchini."), 200)
			// the old version's text leaves the entry with the upload, before the job runs
			if hits, _ := searchHits(t, reader, "aquamarine"); len(hits) != 0 {
				t.Fatalf("old text still found: %v", hitTitles(hits))
			}
			waitTextJobs(t, admin)
			if hits, _ := searchHits(t, reader, "zucchini"); len(hits) != 1 || hits[0]["title"] != "notes.txt" {
				t.Fatalf("new text: %v", hitTitles(hits))
			}
		})

		t.Run("renames and the crawler keep the text", func(t *testing.T) {
			admin.Do(t, "PATCH", f.path("/files/%s", guids["deck.pptx"]), map[string]any{"name": "slides.pptx"}).Expect(t, 200)
			if hits, _ := searchHits(t, reader, "gardenia"); len(hits) != 1 || hits[0]["title"] != "slides.pptx" {
				t.Fatalf("after rename: %v", hitTitles(hits))
			}
			admin.Do(t, "POST", "/admin/search/clear", nil).Expect(t, 200)
			run := admin.Do(t, "POST", "/services/search-crawler/run", nil).Expect(t, 202).Map(t)
			waitJob(t, admin, run["jobId"].(string), "succeeded")
			for _, w := range []string{"gardenia", "indigo", "zucchini"} {
				if hits, _ := searchHits(t, reader, w); len(hits) != 1 {
					t.Fatalf("after crawl %q: %v", w, hitTitles(hits))
				}
			}
			// versions already extracted (or failed) are not queued again
			if after := textJobs(t, admin); len(after[bomb]) != 1 || len(after[guids["scan.pdf"]]) != 1 {
				t.Fatalf("crawl re-queued extracted files: %v", after)
			}
		})
	})
}
