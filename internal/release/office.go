package release

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// OfficeStatus is the state of the Office editor (document server).
type OfficeStatus struct {
	Configured bool   `json:"configured" doc:"CORE_OFFICE_URL is set"`
	URL        string `json:"url"`
	Reachable  bool   `json:"reachable" doc:"GET {url}/healthcheck answered 2xx within 5 s"`
	Version    string `json:"version" doc:"version reported by the document server's command service; empty when it did not say"`
	Message    string `json:"message"`
}

const officeTimeout = 5 * time.Second

// Office checks the configured Office editor: /healthcheck for reachability
// and the command service (POST /coauthoring/CommandService.ashx {"c":"version"})
// for its version.
func (s *Service) Office(ctx context.Context) OfficeStatus {
	base := strings.TrimRight(s.cfg.OfficeURL, "/")
	out := OfficeStatus{Configured: base != "", URL: s.cfg.OfficeURL}
	if base == "" {
		out.Message = "no Office editor is configured (CORE_OFFICE_URL)"
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, officeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthcheck", nil)
	if err != nil {
		out.Message = "bad CORE_OFFICE_URL: " + err.Error()
		return out
	}
	resp, err := s.http.Do(req)
	if err != nil {
		out.Message = "the Office editor does not answer: " + err.Error()
		return out
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		out.Message = "the Office editor's health check answered " + resp.Status
		return out
	}
	out.Reachable, out.Message = true, "the Office editor answers"
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, base+"/coauthoring/CommandService.ashx", bytes.NewReader([]byte(`{"c":"version"}`)))
	if err != nil {
		return out
	}
	req.Header.Set("Content-Type", "application/json")
	if resp, err = s.http.Do(req); err != nil {
		return out
	}
	defer resp.Body.Close()
	var v struct {
		Error   int    `json:"error"`
		Version string `json:"version"`
	}
	if resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&v) == nil && v.Error == 0 {
		out.Version = v.Version
	}
	return out
}
