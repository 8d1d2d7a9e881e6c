package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Tally is what the load got acknowledged and what was found afterwards.
type Tally struct {
	Creates, CreatesFound, Duplicates int
	Uploads, UploadsFound, Corrupt    int
	Attempts                          int64
	SaveMissed, SavePairs             int
	Missed                            []Save // saves some watcher neither got nor was resynced after
}

// Verify reads back every acknowledged create and upload after Stop.
func (l *Load) Verify(t testing.TB) Tally {
	t.Helper()
	l.mu.Lock()
	created := make(map[string]int64, len(l.created))
	for k, v := range l.created {
		created[k] = v
	}
	uploaded := make(map[int64][32]byte, len(l.uploaded))
	for k, v := range l.uploaded {
		uploaded[k] = v
	}
	l.mu.Unlock()
	tl := Tally{Creates: len(created), Uploads: len(uploaded), Attempts: l.attempts.Load()}
	titles := l.titles(t)
	for title := range created {
		if titles[title] > 0 {
			tl.CreatesFound++
		}
	}
	for title, n := range titles {
		if n > 1 && strings.HasPrefix(title, "w-") {
			tl.Duplicates += n - 1
		}
	}
	for id, sum := range uploaded {
		ans, err := l.c.Call(context.Background(), l.c.Pick(int(id)), "GET", fmt.Sprintf("/libraries/%s/files/%d/download", l.f.LibID, id), nil, nil)
		switch {
		case err != nil || ans.Status != 200:
			t.Logf("upload %d: %d %v", id, ans.Status, err)
		case sha256.Sum256(ans.Raw) != sum:
			tl.UploadsFound++
			tl.Corrupt++
		default:
			tl.UploadsFound++
		}
	}
	tl.SaveMissed, tl.SavePairs, tl.Missed = l.MissedSaves()
	if tl.CreatesFound != tl.Creates || tl.Duplicates != 0 || tl.UploadsFound != tl.Uploads || tl.Corrupt != 0 {
		t.Errorf("acknowledged work lost or doubled: %+v", tl)
	}
	return tl
}

// titles counts the list's items by title, reading every page.
func (l *Load) titles(t testing.TB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for page := 1; ; page++ {
		path := fmt.Sprintf("/lists/%s/items?limit=500&page=%d&sort=item_number:asc", l.f.ListID, page)
		ans, err := l.c.Call(context.Background(), l.c.Pick(page), "GET", path, nil, nil)
		if err != nil || ans.Status != 200 {
			t.Fatalf("read back the items: %v %d %s", err, ans.Status, ans.Raw)
		}
		var items []struct {
			FieldValues map[string]json.RawMessage `json:"field_values"`
		}
		if err := ans.Data(&items); err != nil {
			t.Fatalf("read back the items: %v", err)
		}
		for _, it := range items {
			var title string
			_ = json.Unmarshal(it.FieldValues[l.f.TitleField], &title)
			out[title]++
		}
		if len(items) < 500 {
			return out
		}
	}
}
