// Package slapdtest runs a real OpenLDAP slapd on loopback for tests and
// benchmarks: a temporary configuration (schemas core, cosine,
// inetorgperson, nis), an mdb database seeded offline with slapadd, plain
// LDAP and LDAPS (a throw-away CA) on free ports. slapd comes from the
// Debian packages slapd and ldap-utils (.ci/run installs them).
package slapdtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Suffix is the base DN of the test directory; Admin / AdminPassword its root account.
const (
	Suffix        = "dc=example,dc=org"
	Admin         = "cn=admin," + Suffix
	AdminPassword = "admin-secret"
)

// Server is a running slapd.
type Server struct {
	Dir      string
	URL      string // ldap://127.0.0.1:port
	TLSURL   string // ldaps://localhost:port
	CAPEM    string // the CA that signed the server certificate
	conf     string
	cmd      *exec.Cmd
	exited   chan struct{}
	logs     *bytes.Buffer
	ldapAddr string
	tlsAddr  string
}

// Available says whether slapd and slapadd are installed.
func Available() bool {
	_, err1 := exec.LookPath("slapd")
	_, err2 := exec.LookPath("slapadd")
	if err1 != nil || err2 != nil {
		for _, p := range []string{"/usr/sbin/slapd", "/usr/sbin/slapadd"} {
			if _, err := os.Stat(p); err != nil {
				return false
			}
		}
	}
	return true
}

func bin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/usr/sbin/" + name
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Start writes a configuration under dir, loads seed (LDIF, the suffix entry
// is added first) with slapadd and starts slapd.
func Start(dir, seed string) (*Server, error) {
	s := &Server{Dir: dir, conf: filepath.Join(dir, "slapd.conf")}
	if err := os.MkdirAll(filepath.Join(dir, "db"), 0o700); err != nil {
		return nil, err
	}
	if err := s.writeTLS(); err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(`include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile %[1]s/slapd.pid
TLSCACertificateFile %[1]s/ca.pem
TLSCertificateFile %[1]s/server.pem
TLSCertificateKeyFile %[1]s/server.key
sizelimit unlimited
database mdb
maxsize 4294967296
suffix "%[2]s"
rootdn "%[3]s"
rootpw %[4]s
directory %[1]s/db
index objectClass eq
index uid eq
index entryUUID eq
index member eq
`, dir, Suffix, Admin, AdminPassword)
	if err := os.WriteFile(s.conf, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	ldif := fmt.Sprintf("dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n\n%s", Suffix, seed)
	ldifPath := filepath.Join(dir, "seed.ldif")
	if err := os.WriteFile(ldifPath, []byte(ldif), 0o600); err != nil {
		return nil, err
	}
	if out, err := exec.Command(bin("slapadd"), "-q", "-f", s.conf, "-l", ldifPath).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("slapadd: %v\n%s", err, out)
	}
	_ = os.Remove(ldifPath)
	var err error
	if s.ldapAddr, err = freeAddr(); err != nil {
		return nil, err
	}
	if s.tlsAddr, err = freeAddr(); err != nil {
		return nil, err
	}
	s.URL = "ldap://" + s.ldapAddr
	s.TLSURL = "ldaps://localhost:" + s.tlsAddr[strings.LastIndex(s.tlsAddr, ":")+1:]
	return s, s.Restart()
}

// Restart starts slapd again after Stop (same data, same ports).
func (s *Server) Restart() error {
	s.logs = &bytes.Buffer{}
	s.cmd = exec.Command(bin("slapd"), "-f", s.conf, "-h", "ldap://"+s.ldapAddr+"/ ldaps://"+s.tlsAddr+"/", "-d", "0")
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start slapd: %w", err)
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, ch chan struct{}) { _ = cmd.Wait(); close(ch) }(s.cmd, s.exited)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("slapd exited: %s", s.logs.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", s.ldapAddr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("slapd not listening on %s", s.ldapAddr)
}

// Stop ends slapd (the directory is "down" until Restart).
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// writeTLS makes a CA and a server certificate for localhost / 127.0.0.1.
func (s *Server) writeTLS() error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "slapdtest CA"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"}, NotBefore: now.Add(-time.Hour),
		NotAfter: now.Add(24 * time.Hour), DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	s.CAPEM = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	files := map[string][]byte{
		"ca.pem":     []byte(s.CAPEM),
		"server.pem": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		"server.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(s.Dir, name), b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
