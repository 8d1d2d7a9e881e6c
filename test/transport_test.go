package test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

// TestTransportLongRequests: a request may run as long as its work needs
// (issue 9 item 1), bodies are paced (item 10) and body failures answer 4xx
// (item 11). Every item save is slowed by the test hook so that one
// quick edit of 500 rows runs well past Huma's former 5 s body deadline.
func TestTransportLongRequests(t *testing.T) {
	t.Parallel()
	forEachBackendParallel(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "transport")
		admin := s.Admin(t)

		t.Run("quick edit past 5 s saves every row and keeps the connection", func(t *testing.T) {
			t.Parallel()
			k := newKeepAlive(admin)
			k.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			creates := make([]any, 500)
			for i := range creates {
				creates[i] = map[string]any{"clientRowId": fmt.Sprintf("r%d", i), "fieldValues": map[string]any{"title": fmt.Sprintf("long %d", i)}}
			}
			start := time.Now()
			r := k.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{"creates": creates}).Expect(t, 200).Map(t)
			if took := time.Since(start); took < 6*time.Second {
				t.Fatalf("quick edit took %s: the test hook did not slow it past 5 s", took)
			}
			if errs := r["errors"].([]any); len(errs) != 0 {
				t.Fatalf("%d rows failed, first: %v", len(errs), errs[0])
			}
			if n := len(r["created"].([]any)); n != 500 {
				t.Fatalf("created %d rows, want 500", n)
			}
			for i := 0; i < 3; i++ {
				k.Do(t, "GET", "/auth/me", nil).Expect(t, 200)
			}
			filter := `{"logic":"and","conditions":[{"column":"title","operator":"contains","value":"long "}]}`
			_, meta := f.list(t, k.Client, map[string]string{"limit": "1", "filter": filter})
			if meta["total"] != 500.0 {
				t.Fatalf("items saved: %v, want 500", meta["total"])
			}
			if k.conns.Load() != 1 || k.reused.Load() < 4 {
				t.Fatalf("connections opened %d, reused %d: the keep-alive connection was not kept", k.conns.Load(), k.reused.Load())
			}
		})

		t.Run("client that goes away is logged as cancelled, not as an error", func(t *testing.T) {
			t.Parallel()
			creates := make([]any, 300)
			for i := range creates {
				creates[i] = map[string]any{"clientRowId": fmt.Sprintf("g%d", i), "fieldValues": map[string]any{"title": fmt.Sprintf("gone %d", i)}}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			body := strings.NewReader(string(mustJSON(t, map[string]any{"creates": creates})))
			req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/api/v1"+f.path("/items/quick-edit"), body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+admin.Token)
			// a plain client: the request is cancelled before any answer, so
			// there is no exchange to check against the document
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("quick edit answered %d before the client left", resp.StatusCode)
			}
			waitFor(t, 10*time.Second, "the cancelled request in the log", func() bool {
				return countLogs(s, "request cancelled: the client went away") > 0 || countLogs(s, "quick edit", "cancelled") > 0
			})
			if n := countLogs(s, "list item save failed"); n > 0 {
				t.Fatalf("%d rows of a cancelled request logged as failures", n)
			}
			if n := countLogs(s, `"level":"ERROR"`); n > 0 {
				t.Fatalf("errors logged for a client that went away:\n%s", s.Logs())
			}
		})

		t.Run("multipart body without closing boundary answers 400", func(t *testing.T) {
			t.Parallel()
			it := f.create(t, admin, map[string]any{"title": "with attachment"})
			body := "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello, no closing boundary"
			req, _ := http.NewRequest("POST", s.URL+"/api/v1"+f.pathf("/items/%v/attachments", it["id"]), strings.NewReader(body))
			req.Header.Set("Content-Type", "multipart/form-data; boundary=XyZ")
			admin.Send(t, req).Expect(t, 400, "VALIDATION_ERROR")
			invalid := "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\xff\xfe.txt\"\r\n\r\nx\r\n--XyZ--\r\n"
			req, _ = http.NewRequest("POST", s.URL+"/api/v1"+f.pathf("/items/%v/attachments", it["id"]), strings.NewReader(invalid))
			req.Header.Set("Content-Type", "multipart/form-data; boundary=XyZ")
			admin.Send(t, req).Expect(t, 400, "VALIDATION_ERROR")
			if list := admin.Do(t, "GET", f.pathf("/items/%v/attachments", it["id"]), nil).Expect(t, 200); strings.Contains(string(list.Raw), "a.txt") {
				t.Fatalf("a refused upload was stored: %s", list.Raw)
			}
			// the same for library files
			lib := admin.Do(t, "POST", "/libraries", map[string]any{"nodeId": f.nodeID, "title": "Docs", "slug": "docs"}).Expect(t, 201).Map(t)
			files := "/libraries/" + lib["id"].(string) + "/files"
			for _, b := range []string{body, invalid} {
				req, _ = http.NewRequest("POST", s.URL+"/api/v1"+files, strings.NewReader(b))
				req.Header.Set("Content-Type", "multipart/form-data; boundary=XyZ")
				admin.Send(t, req).Expect(t, 400, "VALIDATION_ERROR")
			}
			if list := admin.Do(t, "GET", files, nil).Expect(t, 200); strings.Contains(string(list.Raw), "a.txt") {
				t.Fatalf("a refused library upload was stored: %s", list.Raw)
			}
		})

		t.Run("a body sent one byte every 3 s is cut off", func(t *testing.T) {
			t.Parallel()
			c := rawConn(t, s)
			start := time.Now()
			if _, err := fmt.Fprintf(c, "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				resp, _, err := readAnswer(c, 40*time.Second)
				if err == nil && resp.StatusCode != http.StatusRequestTimeout {
					err = fmt.Errorf("status %d, want 408", resp.StatusCode)
				}
				done <- err
			}()
			tick := time.NewTicker(3 * time.Second)
			defer tick.Stop()
			for {
				select {
				case err := <-done:
					// an answer (408) or a closed connection both end the drip
					if err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
						t.Fatal(err)
					}
					if took := time.Since(start); took > 20*time.Second {
						t.Fatalf("cut off only after %s", took)
					}
					return
				case <-tick.C:
					if time.Since(start) > 40*time.Second {
						t.Fatal("the slow body still holds the connection after 40 s")
					}
					_, _ = c.Write([]byte(" "))
				}
			}
		})

		t.Run("headers sent slowly are cut off after ReadHeaderTimeout", func(t *testing.T) {
			t.Parallel()
			c := rawConn(t, s)
			start := time.Now()
			if _, err := fmt.Fprint(c, "GET /health HTTP/1.1\r\nHost: x\r\n"); err != nil {
				t.Fatal(err)
			}
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			buf := make([]byte, 512)
			for {
				if _, err := c.Read(buf); err != nil {
					break // closed (possibly after a 408 answer)
				}
			}
			if took := time.Since(start); took < 9*time.Second || took > 25*time.Second {
				t.Fatalf("connection with unfinished headers closed after %s, want about 10 s", took)
			}
		})

		t.Run("idle keep-alive connections are closed", func(t *testing.T) {
			t.Parallel()
			c := rawConn(t, s)
			if _, err := fmt.Fprint(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			if resp, _, err := readAnswer(c, 10*time.Second); err != nil || resp.StatusCode != 200 {
				t.Fatalf("health: %v %v", resp, err)
			}
			start := time.Now()
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			if n, err := c.Read(make([]byte, 1)); err == nil {
				t.Fatalf("read %d bytes from an idle connection", n)
			}
			if took := time.Since(start); took < 3*time.Second || took > 20*time.Second {
				t.Fatalf("idle connection closed after %s, want about CORE_IDLE_TIMEOUT (4 s)", took)
			}
		})

		t.Run("live streams outlast the body grace", func(t *testing.T) {
			t.Parallel()
			it := f.create(t, admin, map[string]any{"title": "streamed"})
			ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1"+f.pathf("/items/live?ids=%v", it["id"]), nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+admin.Token)
			resp, err := s.HTTPClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("stream: %d", resp.StatusCode)
			}
			data := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "data:") {
						data <- sc.Text()
					}
				}
				close(data)
			}()
			time.Sleep(12 * time.Second) // longer than CORE_BODY_GRACE
			tick := time.NewTicker(300 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case l, ok := <-data:
					if !ok {
						t.Fatal("the stream ended")
					}
					if strings.Contains(l, "still live") {
						return
					}
				case <-tick.C:
					admin.Do(t, "PATCH", f.pathf("/items/%v", it["id"]), map[string]any{"fieldValues": map[string]any{"title": "still live"}}).Expect(t, 200)
				case <-ctx.Done():
					t.Fatal("no event after the grace period")
				}
			}
		})

		t.Run("a fast upload of a large body is not cut off", func(t *testing.T) {
			t.Parallel()
			it := f.create(t, admin, map[string]any{"title": "large attachment"})
			content := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB
			r := admin.Upload(t, "POST", f.pathf("/items/%v/attachments", it["id"]), "file", "big.bin", content, nil).Expect(t, 201).Map(t)
			if r["size"] != float64(len(content)) {
				t.Fatalf("size %v", r["size"])
			}
		})
	}, "CORE_TEST_SAVE_DELAY=15ms", "CORE_IDLE_TIMEOUT=4s")
}
