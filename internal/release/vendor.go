package release

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/mod/semver"
)

// maxVendorAnswer bounds what is read of a vendor answer.
const maxVendorAnswer = 1 << 20

// Latest is the vendor's answer to the latest-release query:
// { "data": { "version", "changelog": { "whatsNew": [], "fixes": [] }, "link" } }.
type Latest struct {
	Version   string `json:"version"`
	Changelog struct {
		WhatsNew []string `json:"whatsNew"`
		Fixes    []string `json:"fixes"`
	} `json:"changelog"`
	Link string `json:"link"`
}

func (s *Service) vendorPath(path string) string {
	if s.cfg.VendorURL == "" {
		return ""
	}
	return strings.TrimRight(s.cfg.VendorURL, "/") + path
}

func (s *Service) latestURL() string {
	if s.cfg.VendorURL == "" {
		return ""
	}
	q := url.Values{"channel": {s.cfg.Channel}, "platform": {s.cfg.Platform}}
	return s.vendorPath("/api/v1/releases/latest?" + q.Encode())
}

// EntitleURL is the vendor's entitle endpoint ("" when no vendor is set).
func (s *Service) EntitleURL() string { return s.vendorPath("/api/v1/entitle") }

// fetchLatest asks the vendor for the newest release of the channel.
func (s *Service) fetchLatest(ctx context.Context) (*Latest, error) {
	ctx, cancel := context.WithTimeout(ctx, vendorTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.latestURL(), nil)
	if err != nil {
		return nil, fmt.Errorf("vendor latest-release query: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("vendor latest-release query: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxVendorAnswer))
	if err != nil {
		return nil, fmt.Errorf("vendor latest-release query: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("vendor latest-release query answered HTTP %d", resp.StatusCode)
	}
	var env struct {
		Data Latest `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("vendor latest-release answer is not JSON: %w", err)
	}
	if !ValidVersion(env.Data.Version) {
		return nil, fmt.Errorf("vendor latest-release answer has no valid data.version (%q)", env.Data.Version)
	}
	return &env.Data, nil
}

// ValidVersion accepts release versions such as 1.4.2, v2.0.0-rc.1.
func ValidVersion(v string) bool {
	if v == "" || len(v) > 64 {
		return false
	}
	return semver.IsValid(canonical(v))
}

func canonical(v string) string {
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	return v
}

// Newer reports whether candidate is a later release than installed
// (semantic versions; an installed version that is not one is older than any).
func Newer(candidate, installed string) bool {
	if !ValidVersion(candidate) {
		return false
	}
	if !ValidVersion(installed) {
		return true
	}
	return semver.Compare(canonical(candidate), canonical(installed)) > 0
}
