package test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/test/kit"
)

// redisBus serialises the tests that run instances on the shared Redis at
// TEST_REDIS_URL: its channels are not per database, so instances of two
// such tests would receive each other's messages.
var redisBus sync.Mutex

// lockRedisBus holds the shared Redis for the rest of the test.
func lockRedisBus(t *testing.T) {
	t.Helper()
	redisBus.Lock()
	t.Cleanup(redisBus.Unlock)
}

func redisURL(t *testing.T) string {
	u := os.Getenv("TEST_REDIS_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but TEST_REDIS_URL is empty: Redis tests must run in CI")
		}
		t.Skip("TEST_REDIS_URL not set")
	}
	return u
}

// TestLiveAcrossInstances: two instances share the database and a Redis bus;
// an item saved through instance A reaches an SSE client connected to
// instance B through the real /items/live route, and instance B's polling
// fallback (sync-state) shows the same values.
func TestLiveAcrossInstances(t *testing.T) {
	t.Parallel()
	lockRedisBus(t)
	bus := "CORE_BUS_URL=" + redisURL(t)
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			dbURL, dir := b.DatabaseURL(t), t.TempDir()
			a := kit.StartWith(t, dbURL, dir, "serve", bus)
			bb := kit.StartWith(t, dbURL, dir, "serve", bus)
			f := newListFixture(t, a, "cluster")
			f.create(t, f.admin, map[string]any{"title": "first"})
			onB := bb.Admin(t)

			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", bb.URL+"/api/v1"+f.path("/items/live?ids=1"), nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Authorization", "Bearer "+onB.Token)
			resp, err := bb.HTTPClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("stream on B: %d", resp.StatusCode)
			}
			lines := make(chan string, 100)
			go func() {
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(12 * time.Second)
			n := 0
			for done := false; !done; {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatal("stream on B ended")
					}
					if strings.HasPrefix(l, "data:") && strings.Contains(l, "saved-on-a-") {
						if !strings.Contains(l, `"listId":"`+f.listID) || !strings.Contains(l, `"id":1`) {
							t.Fatalf("event %s", l)
						}
						done = true
					}
				case <-tick.C: // the subscription starts asynchronously: save until one arrives
					n++
					f.admin.Do(t, "PATCH", f.path("/items/1"), map[string]any{"fieldValues": map[string]any{"title": "saved-on-a-" + string(rune('a'+n%26))}}).Expect(t, 200)
				case <-deadline:
					t.Fatal("no item_updated on instance B for a save on instance A")
				}
			}
			st := onB.Do(t, "GET", f.path("/items/sync-state?ids=1"), nil).Expect(t, 200).Map(t)
			items := st["items"].([]any)
			if len(items) != 1 || !strings.Contains(string(mustJSON(t, items[0])), "saved-on-a-") {
				t.Fatalf("sync-state on B: %v", st)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
