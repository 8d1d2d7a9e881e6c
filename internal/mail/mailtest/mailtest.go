// Package mailtest is a real SMTP server on loopback for tests and
// benchmarks (emersion/go-smtp): optional PLAIN auth and STARTTLS with a
// self-signed certificate.
package mailtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Credentials is one AUTH attempt, successful or not.
type Credentials struct{ User, Password string }

// Message is one received mail.
type Message struct {
	From string
	To   []string
	Data string
	TLS  bool
	Auth string // user that authenticated, "" when none
}

// Options configure the server.
type Options struct {
	User, Password string        // require PLAIN auth with these credentials when set
	STARTTLS       bool          // offer STARTTLS with a self-signed certificate for 127.0.0.1
	ImplicitTLS    bool          // TLS from the first byte (SMTPS, port 465 style) with that certificate
	KeepMessages   bool          // false only for benchmarks that count
	Delay          time.Duration // pause before accepting each message (a slow server)
}

// Server is a running SMTP server.
type Server struct {
	Host string
	Port int
	// Pool trusts the server's certificate (when STARTTLS is on).
	Pool *x509.CertPool

	srv   *smtp.Server
	opts  Options
	mu    sync.Mutex
	msgs  []Message
	auths []Credentials
	count atomic.Int64
	cond  chan struct{}
}

// Start runs a server on 127.0.0.1 until Close.
func Start(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, opts: opts, cond: make(chan struct{})}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, c: c}, nil }))
	s.srv.Domain = "mailtest.local"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	s.srv.MaxRecipients = 200
	s.srv.AllowInsecureAuth = !opts.STARTTLS
	if opts.STARTTLS || opts.ImplicitTLS {
		cfg, pool, err := selfSigned()
		if err != nil {
			return nil, err
		}
		s.Pool = pool
		if opts.ImplicitTLS {
			ln = tls.NewListener(ln, cfg)
		} else {
			s.srv.TLSConfig = cfg
		}
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// StartT starts a server closed at the end of the test.
func StartT(t testing.TB, opts Options) *Server {
	t.Helper()
	opts.KeepMessages = true
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Close stops the server.
func (s *Server) Close() { _ = s.srv.Close() }

// Addr is host:port.
func (s *Server) Addr() string { return fmt.Sprintf("%s:%d", s.Host, s.Port) }

// Count is the number of messages received.
func (s *Server) Count() int64 { return s.count.Load() }

// Messages returns a copy of what arrived.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// AuthAttempts returns every AUTH PLAIN attempt the server saw, refused ones included.
func (s *Server) AuthAttempts() []Credentials {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Credentials(nil), s.auths...)
}

// Wait waits until a message for which match is true arrived and returns it.
func (s *Server) Wait(t testing.TB, timeout time.Duration, match func(Message) bool) Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, m := range s.Messages() {
			if match(m) {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no matching mail within %s; received %d: %+v", timeout, len(s.Messages()), s.Messages())
	return Message{}
}

// Contains matches a message whose data contains every part.
func Contains(parts ...string) func(Message) bool {
	return func(m Message) bool {
		for _, p := range parts {
			if !strings.Contains(m.Data, p) {
				return false
			}
		}
		return true
	}
}

type session struct {
	s    *Server
	c    *smtp.Conn
	from string
	to   []string
	user string
}

func (x *session) AuthMechanisms() []string {
	if x.s.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		x.s.mu.Lock()
		x.s.auths = append(x.s.auths, Credentials{User: user, Password: pass})
		x.s.mu.Unlock()
		if user != x.s.opts.User || pass != x.s.opts.Password {
			return errors.New("invalid credentials")
		}
		x.user = user
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.s.opts.User != "" && x.user == "" {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = append(x.to, to); return nil }

func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if x.s.opts.Delay > 0 {
		time.Sleep(x.s.opts.Delay)
	}
	_, isTLS := x.c.TLSConnectionState()
	isTLS = isTLS || x.s.opts.ImplicitTLS
	x.s.count.Add(1)
	if x.s.opts.KeepMessages {
		x.s.mu.Lock()
		x.s.msgs = append(x.s.msgs, Message{From: x.from, To: append([]string(nil), x.to...), Data: string(b), TLS: isTLS, Auth: x.user})
		x.s.mu.Unlock()
	}
	return nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

func selfSigned() (*tls.Config, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool, nil
}
