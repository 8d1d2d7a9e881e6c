package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BusReport is what a cut of one instance's bus connection did.
type BusReport struct {
	Instance  string
	Saved     int           // saves acknowledged by the cut instance during the cut
	Delivered time.Duration // after the bus came back, until every watcher had every save or a resync
	Missing   int           // (watcher, save) pairs still not covered 5 s after the bus came back
}

// CutBus cuts instance a's Redis connection for outage while saving the
// watched items through it, restores it and waits until every watcher got
// every save, or a resync, at most 5 s.
func (c *Cluster) CutBus(t testing.TB, l *Load, a *API, outage time.Duration) BusReport {
	t.Helper()
	rep := BusReport{Instance: a.Name}
	began := time.Now()
	a.Relay.Cut()
	c.note("bus of %s cut", a.Name)
	var values []string
	for n := 0; time.Since(began) < outage; n++ {
		v := c.Unique("cut")
		id := l.f.Watched[n%len(l.f.Watched)]
		ans, err := c.Call(context.Background(), a, "PATCH", fmt.Sprintf("/lists/%s/items/%d", l.f.ListID, id),
			map[string]any{"fieldValues": map[string]any{"title": v}}, nil)
		if err != nil || ans.Status != 200 {
			t.Errorf("save on %s during the bus cut: %v %d %s", a.Name, err, ans.Status, ans.Raw)
		} else {
			values = append(values, v)
		}
		time.Sleep(outage / 10)
	}
	rep.Saved = len(values)
	a.Relay.Restore(t)
	c.note("bus of %s back", a.Name)
	back := time.Now()
	for {
		rep.Missing = l.uncovered(values, began)
		if rep.Missing == 0 || time.Since(back) > 5*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	rep.Delivered = time.Since(back)
	if rep.Missing > 0 {
		t.Errorf("bus cut on %s %s-%s: %d (watcher, save) pairs of %d saves neither delivered nor resynced 5 s after the bus came back",
			a.Name, began.Format("15:04:05.000"), back.Format("15:04:05.000"), rep.Missing, rep.Saved)
		for _, w := range l.Watchers {
			for _, v := range values {
				if !w.Covered(v, began) {
					t.Logf("%s missing %s", w.Describe(), v)
				}
			}
		}
	}
	return rep
}

// uncovered counts (watcher, value) pairs where the watcher has neither the
// value nor a resync since.
func (l *Load) uncovered(values []string, since time.Time) int {
	n := 0
	for _, w := range l.Watchers {
		for _, v := range values {
			if !w.Covered(v, since) {
				n++
			}
		}
	}
	return n
}

// MissedSaves counts, over the whole run, the (watcher, acknowledged save)
// pairs where the watcher has neither the save nor a resync after it, and
// returns the saves some watcher missed.
func (l *Load) MissedSaves() (missed, pairs int, saves []Save) {
	l.mu.Lock()
	saved := append([]Save(nil), l.saved...)
	l.mu.Unlock()
	for _, s := range saved {
		some := false
		for _, w := range l.Watchers {
			pairs++
			if !w.Covered(s.Value, s.At.Add(-time.Second)) {
				missed++
				some = true
			}
		}
		if some {
			saves = append(saves, s)
		}
	}
	return missed, pairs, saves
}
