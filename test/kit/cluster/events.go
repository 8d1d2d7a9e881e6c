package cluster

import (
	"fmt"
	"strings"
	"time"
)

// Event is one kill or outage the cluster went through.
type Event struct {
	At   time.Time
	What string
}

func (c *Cluster) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, Event{At: time.Now(), What: fmt.Sprintf(format, args...)})
}

// Events returns the kills and outages so far, in order.
func (c *Cluster) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// Around summarises the client errors from 1 s before to 10 s after each
// event, and where the saves some watcher missed fall.
func (l *Load) Around(events []Event, missed []Save) string {
	var b strings.Builder
	for _, e := range events {
		errs := l.Errors(e.At.Add(-time.Second), e.At.Add(10*time.Second))
		byOp := map[string]int{}
		first := map[string]string{}
		for _, x := range errs {
			byOp[x.Op]++
			if first[x.Op] == "" {
				first[x.Op] = x.Inst + ": " + x.Err
			}
		}
		fmt.Fprintf(&b, "%s %s: %d client errors in [-1 s, +10 s] %v\n", e.At.Format("15:04:05.000"), e.What, len(errs), byOp)
		for op, msg := range first {
			fmt.Fprintf(&b, "    first %s error: %.200s\n", op, msg)
		}
	}
	blamed := map[*Watcher]bool{}
	for _, s := range missed {
		fmt.Fprintf(&b, "missed: save %s on %s at %s by", s.Value, s.Inst, s.At.Format("15:04:05.000"))
		for _, w := range l.Watchers {
			if !w.Covered(s.Value, s.At.Add(-time.Second)) {
				fmt.Fprintf(&b, " %d", w.home)
				blamed[w] = true
			}
		}
		b.WriteString("\n")
	}
	for w := range blamed {
		b.WriteString(w.Describe() + "\n")
	}
	return b.String()
}
