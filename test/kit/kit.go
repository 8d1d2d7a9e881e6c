// Package kit starts the real coreportal binary and talks to it like a
// client. Black-box tests under test/ use it.
package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"coreportal/internal/store/storetest"
)

// AdminPassword is the bootstrap administrator's password in every test server.
const AdminPassword = "admin-password-1"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the binary under test: CORE_BIN when set (scripts/test
// builds it once for every group), else one built once per test process.
func Binary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("CORE_BIN"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "coreportal-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "coreportal")
		// Built as releases are (static, -trimpath), so scripts/release
		// reuses the compiled packages and only links.
		cmd := exec.Command("go", "build", "-trimpath", "-o", binPath, "./cmd/coreportal")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Backend is a database the server runs on.
type Backend struct {
	Name string
	// DatabaseURL returns a fresh database URL ("" for SQLite).
	DatabaseURL func(t testing.TB) string
}

// Backends returns SQLite always and PostgreSQL when TEST_DATABASE_URL is set
// (CI=true requires it).
func Backends(t testing.TB) []Backend {
	bs := []Backend{{Name: "sqlite", DatabaseURL: func(testing.TB) string { return "" }}}
	if storetest.PostgresURL(t) != "" {
		bs = append(bs, Backend{Name: "postgres", DatabaseURL: func(t testing.TB) string { return storetest.FreshPostgresDB(t) }})
	}
	return bs
}

// ForEachBackend runs fn as a parallel subtest per backend, each with its
// own server, data folder and database: the backends run side by side, so fn
// must not share state between them (a variable outside fn, a fixed port).
// The subtests end after the calling test function returns: nothing may
// follow ForEachBackend that reads what the subtests did; use
// ForEachBackendInTurn for that.
func ForEachBackend(t *testing.T, fn func(t *testing.T, s *Server), env ...string) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, Start(t, b, env...))
		})
	}
}

// ForEachBackendInTurn runs fn as a subtest per backend, one after the
// other; each server is stopped before the next starts. For tests that share
// something between the backends: a fixed port, a counting fake service, a
// result compared after both ran.
func ForEachBackendInTurn(t *testing.T, fn func(t *testing.T, s *Server), env ...string) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			fn(t, Start(t, b, env...))
		})
	}
}

// Server is a running coreportal process.
type Server struct {
	URL     string
	DataDir string
	DBURL   string
	cmd     *exec.Cmd
	logs    *bytes.Buffer
	logMu   *sync.Mutex
	t       testing.TB
	admin   string
	// contract checks every exchange of Client.Send
	contract *contract
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

var (
	portsMu sync.Mutex
	ports   = map[string]bool{}
)

// FreePort returns a loopback address with a free port, never one it
// returned before in this process: tests run in parallel, and a port handed
// out is free only until its server binds it.
func FreePort(t testing.TB) string {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		if !ports[addr] {
			ports[addr] = true
			return addr
		}
	}
	t.Fatal("no free loopback port")
	return ""
}

// Start runs `coreportal serve` on a free port with a temp data folder and
// a database that is already migrated (a copy of a migrated one: starting
// finds no migration to apply). env entries (KEY=VALUE) are added to the
// process environment.
func Start(t testing.TB, b Backend, env ...string) *Server {
	t.Helper()
	dataDir := t.TempDir()
	return StartWith(t, b.migrated(t, dataDir), dataDir, "serve", env...)
}

// migrated returns the URL of a new migrated database, or for SQLite ("")
// writes a migrated database file into dataDir.
func (b Backend) migrated(t testing.TB, dataDir string) string {
	t.Helper()
	if b.Name == "postgres" {
		return storetest.MigratedPostgresDB(t)
	}
	storetest.CopyMigratedSQLite(t, filepath.Join(dataDir, "core.db"))
	return ""
}

// StartWith runs a sub-command against a given database and data folder
// (several instances may share them).
func StartWith(t testing.TB, dbURL, dataDir, command string, env ...string) *Server {
	t.Helper()
	return StartProcess(t, Binary(t), dbURL, dataDir, []string{command}, env...)
}

// StartProcess runs bin with args (a sub-command and its flags) like
// StartWith, and waits for /health unless the command is worker.
func StartProcess(t testing.TB, bin, dbURL, dataDir string, args []string, env ...string) *Server {
	t.Helper()
	addr := FreePort(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(),
		"CORE_ADDR="+addr, "CORE_DATA_DIR="+dataDir, "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD="+AdminPassword, "CORE_LOG_LEVEL=debug", "CORE_ACCESS_LOG=false")
	cmd.Env = append(cmd.Env, env...)
	s := &Server{URL: "http://" + addr, DataDir: dataDir, DBURL: dbURL, cmd: cmd, logs: &bytes.Buffer{}, logMu: &sync.Mutex{}, t: t, contract: &contract{}}
	w := lockedWriter{mu: s.logMu, b: s.logs}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.Logs())
		}
	})
	if args[0] == "worker" {
		return s
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("server exited early:\n%s", s.Logs())
		default:
		}
		resp, err := http.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server not ready:\n%s", s.Logs())
	return nil
}

// Logs returns what the process printed so far.
func (s *Server) Logs() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.logs.String()
}

// Stop sends SIGINT and waits for the exit status.
func (s *Server) Stop() error {
	_ = s.cmd.Process.Signal(os.Interrupt)
	for i := 0; i < 200 && s.cmd.ProcessState == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if s.cmd.ProcessState == nil {
		return fmt.Errorf("still running")
	}
	if !s.cmd.ProcessState.Success() {
		return fmt.Errorf("exit: %v", s.cmd.ProcessState)
	}
	return nil
}

// Response is a decoded answer.
type Response struct {
	Status  int
	Header  http.Header
	Raw     []byte
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Meta    map[string]any  `json:"meta"`
	Error   struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// Into decodes data into v.
func (r *Response) Into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("decode data %s: %v", r.Data, err)
	}
}

// Map returns data as an object.
func (r *Response) Map(t testing.TB) map[string]any {
	var m map[string]any
	r.Into(t, &m)
	return m
}

// Client calls the API as one user.
type Client struct {
	S     *Server
	Token string
	HTTP  *http.Client
}

// Anon returns a client without credentials.
func (s *Server) Anon() *Client { return &Client{S: s, HTTP: http.DefaultClient} }

// Admin returns a client signed in as the bootstrap administrator.
func (s *Server) Admin(t testing.TB) *Client {
	t.Helper()
	if s.admin == "" {
		s.admin = s.Login(t, "admin", AdminPassword).Token
	}
	return &Client{S: s, Token: s.admin, HTTP: http.DefaultClient}
}

// Login signs in and fails the test on error.
func (s *Server) Login(t testing.TB, login, password string) *Client {
	t.Helper()
	r := s.Anon().Do(t, "POST", "/auth/login", map[string]any{"login": login, "password": password})
	if r.Status != 200 {
		t.Fatalf("login %s: %d %s", login, r.Status, r.Raw)
	}
	var d struct{ Token string }
	r.Into(t, &d)
	return &Client{S: s, Token: d.Token, HTTP: http.DefaultClient}
}

// CreateUser creates a local user through the admin API and signs it in.
func (s *Server) CreateUser(t testing.TB, login string, admin bool) (*Client, string) {
	t.Helper()
	r := s.Admin(t).Do(t, "POST", "/admin/users", map[string]any{"login": login, "password": "password-" + login, "displayName": strings.ToUpper(login[:1]) + login[1:], "email": login + "@example.com", "isCoreAdmin": admin})
	if r.Status != 201 {
		t.Fatalf("create user %s: %d %s", login, r.Status, r.Raw)
	}
	id := r.Map(t)["id"].(string)
	return s.Login(t, login, "password-"+login), id
}

// Do sends a JSON request to path under /api/v1 (paths starting with "/health"
// or "http" are used as they are). body may be nil, a string (sent raw) or any value (JSON).
func (c *Client) Do(t testing.TB, method, path string, body any) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, c.url(path), rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.Send(t, req)
}

// Upload sends a multipart form with one file part and extra fields.
func (c *Client) Upload(t testing.TB, method, path, part, filename string, content []byte, fields map[string]string) *Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, err := mw.CreateFormFile(part, filename)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	req, err := http.NewRequest(method, c.url(path), &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Send(t, req)
}

// Send sends a prepared request with the client's token. The request and
// its answer are checked against the server's OpenAPI document: a mismatch
// fails the test (see CheckExchange).
func (c *Client) Send(t testing.TB, req *http.Request) *Response {
	t.Helper()
	if c.Token != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	sent := requestBody(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, readErr := io.ReadAll(resp.Body)
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if readErr == nil && c.S != nil && c.S.contract != nil {
		c.S.CheckExchange(t, Exchange{Request: req, Body: sent, Status: resp.StatusCode, Header: resp.Header, Raw: raw})
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(raw, r)
	}
	return r
}

// requestBody returns a copy of the body a request will send (empty for
// none), or nil when the body is a stream that cannot be read twice.
func requestBody(req *http.Request) []byte {
	if req.Body == nil || req.Body == http.NoBody {
		return []byte{}
	}
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil
	}
	return b
}

func (c *Client) url(path string) string {
	switch {
	case strings.HasPrefix(path, "http"):
		return path
	case strings.HasPrefix(path, "/health"), strings.HasPrefix(path, "/api/"):
		return c.S.URL + path
	}
	return c.S.URL + "/api/v1" + path
}

// Expect fails unless the response has the status (and, for errors, the code).
func (r *Response) Expect(t testing.TB, status int, code ...string) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if len(code) > 0 && r.Error.Code != code[0] {
		t.Fatalf("code %q, want %q: %s", r.Error.Code, code[0], r.Raw)
	}
	if status < 300 && !r.Success {
		t.Fatalf("success=false: %s", r.Raw)
	}
	return r
}
