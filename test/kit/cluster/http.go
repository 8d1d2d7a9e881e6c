package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// client carries the load: it never fails a test by itself, errors are counted.
var client = &http.Client{Timeout: 30 * time.Second}

// Answer is the status and body of one raw exchange.
type Answer struct {
	Status int
	Raw    []byte
	Header http.Header
}

// Data decodes the envelope's data into v.
func (a Answer) Data(v any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.Raw, &env); err != nil {
		return fmt.Errorf("decode answer %d: %w", a.Status, err)
	}
	return json.Unmarshal(env.Data, v)
}

// Call sends one request to an instance's API with the administrator's token.
// body is JSON unless contentType is given.
func (c *Cluster) Call(ctx context.Context, a *API, method, path string, body any, hdr map[string]string) (Answer, error) {
	var rd io.Reader
	ct := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return Answer{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.URL+"/api/v1"+path, rd)
	if err != nil {
		return Answer{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s on %s: %w", method, path, a.Name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{Status: resp.StatusCode, Header: resp.Header}, fmt.Errorf("%s %s on %s: read: %w", method, path, a.Name, err)
	}
	return Answer{Status: resp.StatusCode, Raw: raw, Header: resp.Header}, nil
}

// Fixture is what the load works on: a list with watched items and a library.
type Fixture struct {
	ListID, LibID string
	TitleField    string
	Watched       []int64
}

// NewFixture creates a node, a list with three watched items and a library.
func (c *Cluster) NewFixture(t testing.TB) *Fixture {
	t.Helper()
	admin := c.Admin(c.Pick(0))
	slug := fmt.Sprintf("scale%d", time.Now().UnixNano()%1e6)
	node := admin.Do(t, "POST", "/nodes", map[string]any{"slug": slug + "-node", "title": "Scale-out"}).Expect(t, 201).Map(t)
	lst := admin.Do(t, "POST", "/lists", map[string]any{"nodeId": node["id"], "title": "Scale-out list", "slug": slug}).Expect(t, 201).Map(t)
	lib := admin.Do(t, "POST", "/libraries", map[string]any{"nodeId": node["id"], "title": "Scale-out files", "slug": slug + "-files"}).Expect(t, 201).Map(t)
	f := &Fixture{ListID: lst["id"].(string), LibID: lib["id"].(string)}
	for _, fd := range lst["fields"].([]any) {
		if m := fd.(map[string]any); m["internal_name"] == "title" {
			f.TitleField = m["id"].(string)
		}
	}
	for i := range 3 {
		it := admin.Do(t, "POST", "/lists/"+f.ListID+"/items", map[string]any{"fieldValues": map[string]any{"title": fmt.Sprintf("watched-%d", i)}}).Expect(t, 201).Map(t)
		f.Watched = append(f.Watched, int64(it["id"].(float64)))
	}
	return f
}
