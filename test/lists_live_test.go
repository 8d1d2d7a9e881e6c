package test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"coreportal/test/kit"
)

func TestListsLiveStream(t *testing.T) {
	t.Parallel()
	kit.ForEachBackend(t, func(t *testing.T, s *kit.Server) {
		f := newListFixture(t, s, "live")
		a := f.admin
		f.create(t, a, map[string]any{"title": "watched"})
		f.create(t, a, map[string]any{"title": "other"})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1"+f.path("/items/live?ids=1"), nil)
		req.Header.Set("Accept", "text/event-stream")
		req.AddCookie(&http.Cookie{Name: "core_token", Value: a.Token})
		resp, err := s.HTTPClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
		}
		lines := make(chan string, 100)
		go func() {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// the subscription is set up asynchronously: keep saving until an event arrives
		deadline := time.After(8 * time.Second)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case l := <-lines:
				if strings.HasPrefix(l, "data:") {
					if strings.Contains(l, "other") {
						t.Fatalf("event for an item not watched: %s", l)
					}
					if !strings.Contains(l, `"listId":"`+f.listID) || !strings.Contains(l, "renamed") || !strings.Contains(l, `"display_name":"Administrator"`) {
						t.Fatalf("event data %s", l)
					}
					return
				}
			case <-tick.C:
				a.Do(t, "PATCH", f.path("/items/2"), map[string]any{"fieldValues": map[string]any{"title": "other"}}).Expect(t, 200)
				a.Do(t, "POST", f.path("/items/quick-edit"), map[string]any{"updates": []any{map[string]any{"id": 1, "fieldValues": map[string]any{"title": "renamed"}}}}).Expect(t, 200)
			case <-deadline:
				t.Fatal("no item_updated event")
			}
		}
	})
}
