package kit

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// WOPIServer plays an Office document server (Collabora Online's part) in
// WOPI: it serves a discovery with a proof key it generated, and calls the
// host's WOPI endpoints as the editor does, signing each call.
type WOPIServer struct {
	URL    string
	Key    *rsa.PrivateKey
	Forged *rsa.PrivateKey // a key the discovery does not publish
}

// NewWOPIServer starts the document server on loopback; its discovery
// offers docx and odt (edit and view) and xlsx (edit only).
func NewWOPIServer(t testing.TB) *WOPIServer {
	t.Helper()
	w := &WOPIServer{}
	var err error
	if w.Key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if w.Forged, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hosting/discovery":
			rw.Header().Set("Content-Type", "text/xml")
			_, _ = io.WriteString(rw, w.discovery())
		case "/healthcheck":
			_, _ = io.WriteString(rw, "OK")
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	return w
}

func (w *WOPIServer) discovery() string {
	mod := base64.StdEncoding.EncodeToString(w.Key.N.Bytes())
	exp := base64.StdEncoding.EncodeToString(big.NewInt(int64(w.Key.E)).Bytes())
	src := w.URL + "/browser/dist/cool.html?"
	return `<?xml version="1.0" encoding="utf-8"?><wopi-discovery><net-zone name="external-http">` +
		`<app name="writer"><action default="true" ext="docx" name="edit" urlsrc="` + src + `"/>` +
		`<action ext="docx" name="view" urlsrc="` + src + `permission=readonly&amp;"/>` +
		`<action ext="odt" name="edit" urlsrc="` + src + `"/></app>` +
		`<app name="calc"><action ext="xlsx" name="edit" urlsrc="` + src + `&lt;ui=UI_LLCC&amp;&gt;"/></app>` +
		`</net-zone><proof-key exponent="` + exp + `" modulus="` + mod + `" oldexponent="` + exp + `" oldmodulus="` + mod + `" value=""/></wopi-discovery>`
}

// Proof is how a WOPI call is signed.
type Proof int

// Proof modes.
const (
	ProofNone   Proof = iota // no X-WOPI-Proof header
	ProofGood                // signed with the published key
	ProofForged              // signed with another key
	ProofStale               // signed with the published key, time stamp 30 minutes old
)

// Call makes one WOPI request to url (the WOPISrc, with /contents for the
// file's bytes) with the access token, extra headers and body, signed as
// proof says. It returns the answer's status, headers and body.
func (w *WOPIServer) Call(t testing.TB, method, url, token string, headers map[string]string, body []byte, proof Proof) (int, http.Header, []byte) {
	t.Helper()
	full := url + "?access_token=" + token
	req, err := http.NewRequest(method, full, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if proof != ProofNone {
		at := time.Now()
		if proof == ProofStale {
			at = at.Add(-30 * time.Minute)
		}
		key := w.Key
		if proof == ProofForged {
			key = w.Forged
		}
		ts := at.UnixNano()/100 + 621355968000000000
		sig := signProof(t, key, token, full, ts)
		req.Header.Set("X-WOPI-TimeStamp", fmt.Sprint(ts))
		req.Header.Set("X-WOPI-Proof", sig)
		req.Header.Set("X-WOPI-ProofOld", sig)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// signProof signs the WOPI proof data (token, upper-case URL, time stamp,
// each with its 4-byte big-endian length) with RSA PKCS#1 v1.5 SHA-256.
func signProof(t testing.TB, key *rsa.PrivateKey, token, url string, ts int64) string {
	u := strings.ToUpper(url)
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(token)))
	b = append(b, token...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(u)))
	b = append(b, u...)
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint64(b, uint64(ts))
	sum := sha256.Sum256(b)
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}
