package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"
)

// CreateReport is what a create cut off by its instance's death gave.
type CreateReport struct {
	Instance string
	First    string        // what the client of the first request saw
	Retries  int           // retries with the same key until a final answer
	Final    int           // status of the final retry: 201 (run or replayed) or 409 (saved by the first)
	Took     time.Duration // from the kill to the final answer
	Copies   int           // items with the create's title afterwards
}

// PendingCreate is a retried create whose final answer is awaited: a key
// held by a killed instance is released after its 30-second lease.
type PendingCreate struct {
	c    *Cluster
	f    *Fixture
	t    testing.TB
	wg   sync.WaitGroup
	rep  CreateReport
	errs []string
}

// KillDuringCreate sends a keyed create to a, kills a once the request is
// written, and retries with the same key on the other instances in the
// background until an answer is final.
func (c *Cluster) KillDuringCreate(t testing.TB, f *Fixture, a *API) *PendingCreate {
	t.Helper()
	key, title := c.Unique("inflight"), c.Unique("once")
	body := map[string]any{"fieldValues": map[string]any{"title": title}}
	raw, _ := json.Marshal(body)
	wrote := make(chan struct{})
	var once sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) }}
	first := make(chan string, 1)
	go func() {
		ctx := httptrace.WithClientTrace(context.Background(), trace)
		ans, err := c.Call(ctx, a, "POST", "/lists/"+f.ListID+"/items", raw, map[string]string{"Idempotency-Key": key})
		first <- fmt.Sprint(ans.Status, " ", err)
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatalf("the create to %s was not sent within 10 s", a.Name)
	}
	c.Kill(a)
	killed := time.Now()
	p := &PendingCreate{c: c, f: f, t: t, rep: CreateReport{Instance: a.Name}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.rep.First = <-first
		p.retry(key, raw, killed)
		p.rep.Copies, _ = c.countTitle(f, title)
	}()
	return p
}

func (p *PendingCreate) retry(key string, raw []byte, killed time.Time) {
	for n := 0; time.Since(killed) < 90*time.Second; n++ {
		p.rep.Retries++
		ans, err := p.c.Call(context.Background(), p.c.Pick(n), "POST", "/lists/"+p.f.ListID+"/items", raw, map[string]string{"Idempotency-Key": key})
		switch {
		case err != nil:
			p.errs = append(p.errs, err.Error())
		case ans.Status == http.StatusCreated:
			p.rep.Final, p.rep.Took = ans.Status, time.Since(killed)
			return
		case ans.Status == http.StatusConflict && ans.Header.Get("Retry-After") == "":
			p.rep.Final, p.rep.Took = ans.Status, time.Since(killed)
			return
		}
		time.Sleep(time.Second)
	}
	p.errs = append(p.errs, "no final answer within 90 s of the kill")
}

// Wait returns the report; the create must exist exactly once.
func (p *PendingCreate) Wait() CreateReport {
	p.wg.Wait()
	for _, e := range p.errs {
		p.t.Logf("retry of the cut-off create: %s", e)
	}
	if p.rep.Copies != 1 || p.rep.Final == 0 {
		p.t.Errorf("create cut off by the death of %s: %d copies, final answer %d", p.rep.Instance, p.rep.Copies, p.rep.Final)
	}
	return p.rep
}

// countTitle counts the list's items with this title.
func (c *Cluster) countTitle(f *Fixture, title string) (int, error) {
	filter, _ := json.Marshal(map[string]any{"logic": "and", "conditions": []any{map[string]any{"column": "title", "operator": "eq", "value": title}}})
	q := url.Values{"filter": {string(filter)}, "limit": {strconv.Itoa(500)}}
	ans, err := c.Call(context.Background(), c.Pick(0), "GET", "/lists/"+f.ListID+"/items?"+q.Encode(), nil, nil)
	if err != nil || ans.Status != 200 {
		return -1, fmt.Errorf("count %s: %v %d %s", title, err, ans.Status, ans.Raw)
	}
	var items []json.RawMessage
	if err := ans.Data(&items); err != nil {
		return -1, err
	}
	return len(items), nil
}
