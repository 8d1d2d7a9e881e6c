// Package wopi makes the portal a WOPI host for an Office document server
// (Collabora Online, ONLYOFFICE) at CORE_OFFICE_URL: it reads the server's
// discovery (cached, refreshed), hands out short-lived per-file, per-user
// access tokens (GET /libraries/{id}/files/{ref}/edit) and answers the
// server's WOPI calls under /wopi/files/ (CheckFileInfo, GetFile, PutFile,
// locks in the shared file lock store, PutRelativeFile), checking its
// proof keys when it sends them. Every read and write goes through the
// libraries service as the token's user, so rights, versions, locks,
// search and audit hold as for the REST API.
package wopi

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Discovery is what the document server offers.
type Discovery struct {
	// Actions maps a file extension (lower case, no dot) and an action
	// name ("edit", "view") to the action's urlsrc.
	Actions map[string]map[string]string
	Proof   *rsa.PublicKey // nil when the server publishes no proof key
	OldKey  *rsa.PublicKey
	Fetched time.Time
}

// Extensions lists the file types the server can open, sorted.
func (d *Discovery) Extensions() []string {
	out := make([]string, 0, len(d.Actions))
	for ext := range d.Actions {
		out = append(out, ext)
	}
	sort.Strings(out)
	return out
}

type discoveryXML struct {
	Zones []struct {
		Apps []struct {
			Name    string `xml:"name,attr"`
			Actions []struct {
				Name   string `xml:"name,attr"`
				Ext    string `xml:"ext,attr"`
				URLSrc string `xml:"urlsrc,attr"`
			} `xml:"action"`
		} `xml:"app"`
	} `xml:"net-zone"`
	ProofKey *struct {
		Modulus     string `xml:"modulus,attr"`
		Exponent    string `xml:"exponent,attr"`
		OldModulus  string `xml:"oldmodulus,attr"`
		OldExponent string `xml:"oldexponent,attr"`
	} `xml:"proof-key"`
}

// parseDiscovery reads a discovery document.
func parseDiscovery(r io.Reader) (*Discovery, error) {
	var x discoveryXML
	if err := xml.NewDecoder(io.LimitReader(r, 4<<20)).Decode(&x); err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	d := &Discovery{Actions: map[string]map[string]string{}}
	for _, z := range x.Zones {
		for _, a := range z.Apps {
			for _, ac := range a.Actions {
				ext := strings.ToLower(strings.TrimPrefix(ac.Ext, "."))
				if ext == "" || ac.URLSrc == "" {
					continue
				}
				if d.Actions[ext] == nil {
					d.Actions[ext] = map[string]string{}
				}
				if _, ok := d.Actions[ext][ac.Name]; !ok {
					d.Actions[ext][ac.Name] = ac.URLSrc
				}
			}
		}
	}
	if len(d.Actions) == 0 {
		return nil, errors.New("discovery: no actions")
	}
	if pk := x.ProofKey; pk != nil {
		d.Proof = rsaKey(pk.Modulus, pk.Exponent)
		d.OldKey = rsaKey(pk.OldModulus, pk.OldExponent)
	}
	return d, nil
}

// rsaKey builds a public key from base64 big-endian modulus and exponent
// (nil when either is missing or malformed).
func rsaKey(mod, exp string) *rsa.PublicKey {
	m, err1 := base64.StdEncoding.DecodeString(mod)
	e, err2 := base64.StdEncoding.DecodeString(exp)
	if err1 != nil || err2 != nil || len(m) == 0 || len(e) == 0 || len(e) > 4 {
		return nil
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(m), E: int(new(big.Int).SetBytes(e).Int64())}
}

// discoveryTTL is how long a fetched discovery is used before it is read again;
// failedTTL how long a failure is remembered before the next try.
const (
	discoveryTTL = time.Hour
	failedTTL    = 30 * time.Second
)

// discoverer fetches and caches the discovery of one server.
type discoverer struct {
	base   string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	cur     *Discovery
	lastErr error
	errAt   time.Time
}

// get returns the cached discovery, refreshing it when it is older than
// discoveryTTL; a refresh failure keeps the previous one (with its error).
func (d *discoverer) get(ctx context.Context, force bool) (*Discovery, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if !force && d.cur != nil && now.Sub(d.cur.Fetched) < discoveryTTL {
		return d.cur, nil
	}
	if !force && d.lastErr != nil && now.Sub(d.errAt) < failedTTL {
		return d.cur, d.lastErr
	}
	nd, err := d.fetch(ctx)
	if err != nil {
		d.lastErr, d.errAt = err, now
		return d.cur, err
	}
	nd.Fetched, d.cur, d.lastErr = now, nd, nil
	return nd, nil
}

func (d *discoverer) fetch(ctx context.Context) (*Discovery, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/hosting/discovery", nil)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("discovery: %s answered %s", d.base+"/hosting/discovery", resp.Status)
	}
	return parseDiscovery(resp.Body)
}
