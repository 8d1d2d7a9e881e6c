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
	// Discovery, FileTypes and ProofKey come from the WOPI host (internal/wopi).
	Discovery bool     `json:"discovery" doc:"the document server's WOPI discovery ({url}/hosting/discovery) was read: documents can be opened in it"`
	FileTypes []string `json:"fileTypes" doc:"file extensions the document server opens, from its discovery (empty when it cannot be read)"`
	ProofKey  bool     `json:"proofKey" doc:"the discovery publishes a proof key; WOPI requests carrying a proof are checked with it"`
}

// OfficeDiscovery reads the Office editor's WOPI discovery: whether it
// works, the file types it offers, whether it has a proof key, and the
// reason when it failed.
type OfficeDiscovery func(ctx context.Context) (ok bool, fileTypes []string, proofKey bool, problem string)

// UseOfficeDiscovery wires the WOPI host's discovery into the status.
func (s *Service) UseOfficeDiscovery(f OfficeDiscovery) { s.discovery = f }

// officeDiscovery fills the discovery part of the status.
func (s *Service) officeDiscovery(ctx context.Context, out *OfficeStatus) {
	out.FileTypes = []string{}
	if s.discovery == nil || !out.Configured {
		return
	}
	ok, types, proof, problem := s.discovery(ctx)
	out.Discovery, out.ProofKey = ok, proof
	if types != nil {
		out.FileTypes = types
	}
	if !ok && problem != "" {
		out.Message += "; WOPI discovery: " + problem
	}
}

const officeTimeout = 5 * time.Second

// Office checks the configured Office editor: /healthcheck for reachability
// and the command service (POST /coauthoring/CommandService.ashx {"c":"version"})
// for its version.
func (s *Service) Office(ctx context.Context) (out OfficeStatus) {
	base := strings.TrimRight(s.cfg.OfficeURL, "/")
	out = OfficeStatus{Configured: base != "", URL: s.cfg.OfficeURL}
	defer s.officeDiscovery(ctx, &out)
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
