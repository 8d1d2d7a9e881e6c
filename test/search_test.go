package test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"coreportal/test/kit"
)

// searchHits runs GET /search as c and returns the hits and meta.
func searchHits(t *testing.T, c *kit.Client, q string, params ...string) ([]map[string]any, map[string]any) {
	t.Helper()
	v := url.Values{"q": {q}}
	for i := 0; i+1 < len(params); i += 2 {
		v.Set(params[i], params[i+1])
	}
	r := c.Do(t, "GET", "/search?"+v.Encode(), nil).Expect(t, 200)
	var hits []map[string]any
	r.Into(t, &hits)
	return hits, r.Meta
}

func hitTitles(hits []map[string]any) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h["type"].(string)+":"+h["title"].(string))
	}
	return out
}

func hasHit(hits []map[string]any, typ, title string) bool {
	for _, h := range hits {
		if h["type"] == typ && h["title"] == title {
			return true
		}
	}
	return false
}

// TestSearch covers issue #12 on both databases with one server per backend:
// indexing on save and delete, rights in the query, stemming, phrases,
// prefixes, snippets, searchEnabled, field deletion, clear and the crawler.
func TestSearch(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		admin := s.Admin(t)
		reader, readerID := s.CreateUser(t, "sreader", false)
		outsider, _ := s.CreateUser(t, "soutsider", false)
		f := newListFixture(t, s, "contracts")
		notes := f.addField(t, "notes", "text", nil)
		grant(t, s, "node", f.nodeID, "user", readerID, "view")
		hidden := mkNode(t, admin, "", "hidden-zone")

		t.Run("items found after save, gone after delete", func(t *testing.T) {
			f.create(t, admin, map[string]any{f.fields["title"]: "Договор поставки", notes: "Подписан директором в пятницу"})
			f.create(t, admin, map[string]any{f.fields["title"]: "Supply contract", notes: "Signed by the director on Friday"})
			it := f.create(t, admin, map[string]any{f.fields["title"]: "Ёлка новогодняя", notes: "temporary"})

			hits, meta := searchHits(t, reader, "договоры")
			if len(hits) != 1 || hits[0]["title"] != "Договор поставки" || meta["total"] != 1.0 {
				t.Fatalf("договоры: %v %v", hitTitles(hits), meta)
			}
			if hits, _ := searchHits(t, outsider, "договоры"); len(hits) != 0 { // no right on the node
				t.Fatalf("outsider sees new items: %v", hitTitles(hits))
			}
			h := hits[0]
			if h["type"] != "item" || h["listId"] != f.listID || h["nodeId"] != f.nodeID || h["number"] != 1.0 ||
				h["path"] != "/contracts-node/lists/contracts?item=1" || h["updatedAt"] == nil || h["score"] == nil {
				t.Fatalf("hit %v", h)
			}
			hits, _ = searchHits(t, reader, "contracts")
			if !hasHit(hits, "item", "Supply contract") || !hasHit(hits, "list", "List contracts") {
				t.Fatalf("contracts: %v", hitTitles(hits))
			}
			// title matches rank above body matches
			if hits[0]["title"] != "Supply contract" && hits[0]["title"] != "List contracts" {
				t.Fatalf("ranking: %v", hitTitles(hits))
			}
			hits, _ = searchHits(t, reader, "директор")
			if len(hits) != 1 || !strings.Contains(hits[0]["snippet"].(string), "<mark>директором</mark>") {
				t.Fatalf("snippet: %v", hits)
			}
			if hits, _ = searchHits(t, reader, "елка"); len(hits) != 1 || hits[0]["title"] != "Ёлка новогодняя" {
				t.Fatalf("ё/е: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, "ёлки"); len(hits) != 1 {
				t.Fatalf("ёлки: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, `"signed by the director"`); len(hits) != 1 || hits[0]["title"] != "Supply contract" {
				t.Fatalf("phrase: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, `"director signed"`); len(hits) != 0 {
				t.Fatalf("phrase out of order: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, "suppl*", "type", "item"); len(hits) != 1 || hits[0]["title"] != "Supply contract" {
				t.Fatalf("prefix: %v", hitTitles(hits))
			}
			admin.Do(t, "PATCH", f.pathf("/items/%d", int(it["id"].(float64))), map[string]any{"fieldValues": map[string]any{notes: "permanent"}}).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "temporary"); len(hits) != 0 {
				t.Fatalf("old text still found: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, "permanent"); len(hits) != 1 {
				t.Fatalf("new text not found: %v", hitTitles(hits))
			}
			admin.Do(t, "DELETE", f.pathf("/items/%d", int(it["id"].(float64))), nil).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "permanent"); len(hits) != 0 {
				t.Fatalf("deleted item found: %v", hitTitles(hits))
			}
		})

		t.Run("rights: isolated item, hidden node, group grant; total counts only what the caller sees", func(t *testing.T) {
			secret := f.create(t, admin, map[string]any{f.fields["title"]: "Secret contract", notes: "salary"})
			f.isolate(t, int(secret["id"].(float64)), readerID)
			admin.Do(t, "POST", "/pages", map[string]any{"nodeId": hidden, "slug": "plans", "title": "Salary plans", "content": "<p>salary grid</p>"}).Expect(t, 201)
			open := admin.Do(t, "POST", "/pages", map[string]any{"nodeId": f.nodeID, "slug": "open", "title": "Open salary page", "content": "<b>salary</b> info"}).Expect(t, 201).Map(t)
			hits, meta := searchHits(t, reader, "salary")
			if len(hits) != 1 || hits[0]["title"] != "Open salary page" || meta["total"] != 1.0 || hits[0]["pageId"] != open["id"] ||
				hits[0]["path"] != "/contracts-node/pages/open" || hits[0]["snippet"] != "<mark>salary</mark> info" {
				t.Fatalf("reader sees %v %v", hits, meta)
			}
			hits, meta = searchHits(t, admin, "salary")
			if len(hits) != 3 || meta["total"] != 3.0 {
				t.Fatalf("admin sees %v %v", hitTitles(hits), meta)
			}
			hits, meta = searchHits(t, admin, "salary", "limit", "1", "page", "2")
			if len(hits) != 1 || meta["total"] != 3.0 || meta["totalPages"] != 3.0 {
				t.Fatalf("paging %v %v", hitTitles(hits), meta)
			}
			hits, _ = searchHits(t, admin, "salary", "nodeId", hidden)
			if len(hits) != 1 || hits[0]["title"] != "Salary plans" || hits[0]["path"] != "/hidden-zone/pages/plans" {
				t.Fatalf("nodeId filter %v", hits)
			}
			// a group grant on the hidden node opens its page to the group's members
			g := admin.Do(t, "POST", "/groups", map[string]any{"name": "Search readers"}).Expect(t, 201).Map(t)["id"].(string)
			admin.Do(t, "POST", "/groups/"+g+"/members", map[string]any{"userId": readerID}).Expect(t, 200)
			grant(t, s, "node", hidden, "group", g, "view")
			if hits, meta = searchHits(t, reader, "salary"); len(hits) != 2 || meta["total"] != 2.0 {
				t.Fatalf("with group grant %v %v", hitTitles(hits), meta)
			}
			// restoring inheritance makes the item visible again
			admin.Do(t, "PATCH", f.pathf("/items/%d/permission-settings", int(secret["id"].(float64))), map[string]any{"inheritFromParent": true}).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "salary", "type", "item"); len(hits) != 1 {
				t.Fatalf("after restoring inheritance %v", hitTitles(hits))
			}
		})

		t.Run("nodes, field deletion, searchEnabled", func(t *testing.T) {
			if hits, _ := searchHits(t, admin, "hidden", "type", "node"); len(hits) != 1 || hits[0]["path"] != "/hidden-zone" {
				t.Fatalf("node %v", hits)
			}
			if hits, _ := searchHits(t, outsider, "hidden", "type", "node"); len(hits) != 0 {
				t.Fatalf("reader sees hidden node %v", hits)
			}
			admin.Do(t, "DELETE", f.path("/fields/"+notes), nil).Expect(t, 200)
			if hits, _ := searchHits(t, admin, "директор"); len(hits) != 0 {
				t.Fatalf("deleted field still found: %v", hitTitles(hits))
			}
			admin.Do(t, "PATCH", f.path(""), map[string]any{"searchEnabled": false}).Expect(t, 200)
			if hits, _ := searchHits(t, admin, "contract", "nodeId", f.nodeID, "type", "item"); len(hits) != 0 {
				t.Fatalf("searchEnabled=false still found: %v", hitTitles(hits))
			}
			admin.Do(t, "PATCH", f.path(""), map[string]any{"searchEnabled": true}).Expect(t, 200)
			if hits, _ := searchHits(t, admin, "contract", "type", "item"); len(hits) != 2 {
				t.Fatalf("searchEnabled=true again: %v", hitTitles(hits))
			}
		})

		t.Run("library files: found after upload and rename, isolated folder hidden, gone after delete, back after restore", func(t *testing.T) {
			lf := newLibFixture(t, s, "archive")
			grant(t, s, "node", lf.nodeID, "user", readerID, "view")
			vault := lf.folder(t, admin, nil, "Vault")
			lf.put(t, admin, vault["guid"].(string), "budget forecast.xlsx", []byte("x"), 201)
			open := lf.put(t, admin, "", "budget summary.txt", []byte("x"), 201)
			hits, meta := searchHits(t, reader, "budget")
			if len(hits) != 2 || meta["total"] != 2.0 {
				t.Fatalf("before isolation %v", hitTitles(hits))
			}
			admin.Do(t, "PATCH", lf.path("/files/%d/permission-settings", num(vault)), map[string]any{"inheritFromParent": false}).Expect(t, 200)
			var recs []map[string]any
			admin.Do(t, "GET", "/permissions?resourceType=file&resourceId="+vault["guid"].(string), nil).Expect(t, 200).Into(t, &recs)
			for _, r := range recs {
				if r["principalId"] == readerID {
					admin.Do(t, "DELETE", "/permissions/"+r["id"].(string), nil).Expect(t, 200)
				}
			}
			hits, meta = searchHits(t, reader, "budget")
			if len(hits) != 1 || meta["total"] != 1.0 || hits[0]["title"] != "budget summary.txt" || hits[0]["libraryId"] != lf.libID ||
				hits[0]["path"] != "/archive-node/libraries/archive?file="+fmt.Sprint(num(open)) {
				t.Fatalf("isolated folder: %v", hits)
			}
			if hits, _ = searchHits(t, admin, "budget"); len(hits) != 2 {
				t.Fatalf("admin: %v", hitTitles(hits))
			}
			// created inside the isolated folder: hidden as well (only what is
			// created at the library's root skips the lookup of its chain)
			lf.put(t, admin, vault["guid"].(string), "budget plan.docx", []byte("x"), 201)
			lf.folder(t, admin, vault["guid"], "Budget drafts")
			if hits, _ = searchHits(t, reader, "budget"); len(hits) != 1 || hits[0]["title"] != "budget summary.txt" {
				t.Fatalf("created in the isolated folder: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, admin, "budget"); len(hits) != 4 {
				t.Fatalf("admin after creating in the folder: %v", hitTitles(hits))
			}
			admin.Do(t, "PATCH", lf.path("/files/%d", num(open)), map[string]any{"name": "revenue summary.txt"}).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "revenue", "type", "file"); len(hits) != 1 {
				t.Fatalf("renamed: %v", hitTitles(hits))
			}
			if hits, _ = searchHits(t, reader, "archive", "type", "library"); len(hits) != 1 || hits[0]["path"] != "/archive-node/libraries/archive" {
				t.Fatalf("library: %v", hits)
			}
			admin.Do(t, "DELETE", lf.path("/files/%d", num(open)), nil).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "revenue"); len(hits) != 0 {
				t.Fatalf("deleted file found: %v", hitTitles(hits))
			}
			var entries []map[string]any
			admin.Do(t, "GET", "/nodes/"+lf.nodeID+"/recycle-bin", nil).Expect(t, 200).Into(t, &entries)
			admin.Do(t, "POST", "/nodes/"+lf.nodeID+"/recycle-bin/"+entries[0]["id"].(string)+"/restore", nil).Expect(t, 200)
			if hits, _ = searchHits(t, reader, "revenue"); len(hits) != 1 {
				t.Fatalf("restored file not found: %v", hitTitles(hits))
			}
			admin.Do(t, "DELETE", "/libraries/"+lf.libID, nil).Expect(t, 200)
			if hits, _ = searchHits(t, admin, "budget revenue archive"); len(hits) != 0 {
				t.Fatalf("deleted library found: %v", hitTitles(hits))
			}
		})

		t.Run("surveys: drafts stay out, published found, gone after delete", func(t *testing.T) {
			sv := mkSurvey(t, admin, f.nodeID, "canteen", surveyDef(false), map[string]any{"title": "Canteen satisfaction"})
			if hits, _ := searchHits(t, reader, "canteen"); len(hits) != 0 {
				t.Fatalf("draft found: %v", hitTitles(hits))
			}
			admin.Do(t, "POST", "/surveys/"+sv["id"].(string)+"/publish", nil).Expect(t, 200)
			hits, _ := searchHits(t, reader, "satisfaction", "type", "survey")
			if len(hits) != 1 || hits[0]["surveyId"] != sv["id"] || hits[0]["path"] != "/contracts-node/surveys/canteen" {
				t.Fatalf("published: %v", hits)
			}
			admin.Do(t, "DELETE", "/surveys/"+sv["id"].(string), nil).Expect(t, 200)
			if hits, _ := searchHits(t, reader, "canteen"); len(hits) != 0 {
				t.Fatalf("deleted survey found: %v", hitTitles(hits))
			}
		})

		t.Run("tiers, newest first, exact totals and pages beyond 1,000", func(t *testing.T) {
			tf := newListFixture(t, s, "tiers")
			body := tf.addField(t, "body", "text", nil)
			grant(t, s, "node", tf.nodeID, "user", readerID, "view")
			tf.create(t, admin, map[string]any{tf.fields["title"]: "walrus plan", body: "old"})
			tf.create(t, admin, map[string]any{tf.fields["title"]: "misc", body: "walrus plan inside"})
			tf.create(t, admin, map[string]any{tf.fields["title"]: "Plan for the walrus", body: "new"})
			hits, meta := searchHits(t, reader, "walrus plans")
			if got := hitTitles(hits); strings.Join(got, ",") != "item:Plan for the walrus,item:walrus plan,item:misc" ||
				hits[0]["score"] != 2.0 || hits[2]["score"] != 1.0 || meta["total"] != 3.0 || meta["totalRelation"] != "eq" {
				t.Fatalf("tiers %v %v", got, meta)
			}
			for batch := 0; batch < 3; batch++ {
				var rows []any
				for i := 0; i < 334; i++ {
					rows = append(rows, map[string]any{"clientRowId": fmt.Sprint(i), "fieldValues": map[string]any{tf.fields["title"]: fmt.Sprintf("narwhal %d", batch*334+i)}})
				}
				admin.Do(t, "POST", tf.path("/items/quick-edit"), map[string]any{"creates": rows}).Expect(t, 200)
			}
			// 1,002 matches, more than one pass reads: the total is counted, every page can be read
			hits, meta = searchHits(t, reader, "narwhal", "limit", "100", "page", "10")
			if len(hits) != 100 || meta["total"] != 1002.0 || meta["totalRelation"] != "eq" || meta["totalPages"] != 11.0 {
				t.Fatalf("1,002 matches: %d hits, meta %v", len(hits), meta)
			}
			if hits, meta = searchHits(t, reader, "narwhal", "limit", "100", "page", "11"); len(hits) != 2 || meta["total"] != 1002.0 ||
				hits[0]["title"] != "narwhal 1" || hits[1]["title"] != "narwhal 0" {
				t.Fatalf("last page: %v, meta %v", hitTitles(hits), meta)
			}
			if hits, meta = searchHits(t, reader, "narwh*", "limit", "100", "page", "11"); len(hits) != 2 || meta["total"] != 1002.0 {
				t.Fatalf("prefix, last page: %v, meta %v", hitTitles(hits), meta)
			}
			// items in a list the reader cannot view are neither counted nor returned; the administrator counts them
			hidden := newListFixture(t, s, "tiers-hidden")
			for i := 0; i < 3; i++ {
				hidden.create(t, admin, map[string]any{hidden.fields["title"]: fmt.Sprintf("narwhal hidden %d", i)})
			}
			if _, meta = searchHits(t, reader, "narwhal", "limit", "100", "page", "11"); meta["total"] != 1002.0 {
				t.Fatalf("reader with hidden matches: meta %v", meta)
			}
			if hits, meta = searchHits(t, admin, "narwhal", "limit", "100", "page", "11"); meta["total"] != 1005.0 || len(hits) != 5 {
				t.Fatalf("administrator: %d hits, meta %v", len(hits), meta)
			}
			if hits, meta = searchHits(t, outsider, "narwhal"); len(hits) != 0 || meta["total"] != 0.0 || meta["totalRelation"] != "eq" {
				t.Fatalf("outsider: %d hits, meta %v", len(hits), meta)
			}
		})

		t.Run("bad input", func(t *testing.T) {
			for _, q := range []string{"/search", "/search?q=", "/search?q=%20%2A%22", "/search?q=x&limit=0", "/search?q=x&limit=101",
				"/search?q=x&type=user", "/search?q=x&nodeId=nope", "/search?q=x&page=0"} {
				reader.Do(t, "GET", q, nil).Expect(t, 400, "VALIDATION_ERROR")
			}
			s.Anon().Do(t, "GET", "/search?q=x", nil).Expect(t, 401)
			outsider.Do(t, "GET", "/search?q=x&nodeId="+hidden, nil).Expect(t, 403)
			reader.Do(t, "POST", "/admin/search/clear", nil).Expect(t, 403)
		})

		t.Run("clear and crawl", func(t *testing.T) {
			before, _ := searchHits(t, admin, "contract")
			n := admin.Do(t, "POST", "/admin/search/clear", nil).Expect(t, 200).Map(t)["total"].(float64)
			if n < 5 {
				t.Fatalf("cleared %v", n)
			}
			if hits, _ := searchHits(t, admin, "contract"); len(hits) != 0 {
				t.Fatalf("after clear %v", hitTitles(hits))
			}
			run := admin.Do(t, "POST", "/services/search-crawler/run", nil).Expect(t, 202).Map(t)
			j := waitJob(t, admin, run["jobId"].(string), "succeeded")
			res := j["result"].(map[string]any)
			if res["indexed"].(float64) < n {
				t.Fatalf("crawl result %v (cleared %v)", res, n)
			}
			dash := admin.Do(t, "GET", "/admin/dashboard", nil).Expect(t, 200).Map(t)
			si := dash["maintenance"].(map[string]any)["searchIndex"].(map[string]any)
			if si["records"].(float64) < n || si["updatedAt"] == nil || si["status"] != "ok" {
				t.Fatalf("dashboard searchIndex %v", si)
			}
			after, _ := searchHits(t, admin, "contract")
			if strings.Join(hitTitles(after), "|") != strings.Join(hitTitles(before), "|") {
				t.Fatalf("crawl gave %v, want %v", hitTitles(after), hitTitles(before))
			}
		})
	})
}
