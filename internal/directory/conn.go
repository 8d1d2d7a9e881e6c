package directory

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-ldap/ldap/v3"

	"coreportal/internal/fault"
)

// conn is an open, bound connection to the directory.
type conn struct {
	*ldap.Conn
	stop func() bool
}

func (c *conn) close() {
	c.stop()
	_ = c.Conn.Close()
}

func (c Config) timeout() time.Duration { return time.Duration(c.timeoutMs()) * time.Millisecond }

func (c Config) tlsConfig() (*tls.Config, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fault.Validation("url", "url is not valid")
	}
	tc := &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	if strings.TrimSpace(c.TLSCACert) != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(c.TLSCACert)) {
			return nil, fault.Validation("tlsCaCert", "tlsCaCert holds no usable certificate")
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// dial connects to the configured server when CORE_DIRECTORY_ALLOWED_HOSTS
// allows it and its values hold no control characters (settings stored
// before these rules are checked here as well).
func (s *Service) dial(ctx context.Context, c Config, requestTimeout time.Duration) (*conn, error) {
	if err := s.allowed.checkHost(c.URL); err != nil {
		return nil, err
	}
	if err := checkConnectionValues(c); err != nil {
		return nil, err
	}
	return connect(ctx, c, requestTimeout)
}

// connect connects (within connectTimeoutMs), upgrades with StartTLS when
// set and binds as the service account. requestTimeout bounds each later
// request. Errors are fault UNAVAILABLE naming only a category (describe).
func connect(ctx context.Context, c Config, requestTimeout time.Duration) (*conn, error) {
	if !c.Configured() {
		return nil, fault.Validation("url", "the directory connection is not configured (url, baseDn, bindDn and bindPassword are required)")
	}
	tc, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	d := &net.Dialer{Timeout: c.timeout()}
	type result struct {
		l   *ldap.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := ldap.DialURL(c.URL, ldap.DialWithDialer(d), ldap.DialWithTLSConfig(tc))
		ch <- result{l, err}
	}()
	var l *ldap.Conn
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, describe(ctx, c, r.err, false)
		}
		l = r.l
	case <-dctx.Done():
		go func() {
			if r := <-ch; r.l != nil {
				_ = r.l.Close()
			}
		}()
		return nil, describe(ctx, c, context.DeadlineExceeded, false)
	}
	// a cancelled request (client gone, job stopped) closes the connection
	cn := &conn{Conn: l, stop: context.AfterFunc(ctx, func() { _ = l.Close() })}
	l.SetTimeout(c.timeout())
	if c.StartTLS {
		if err := l.StartTLS(tc); err != nil {
			cn.close()
			return nil, describe(ctx, c, err, true)
		}
	}
	if err := l.Bind(c.BindDN, c.BindPassword); err != nil {
		cn.close()
		if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
			return nil, fault.Unavailable("the directory refused the service account (bindDn %s): invalid credentials", c.BindDN)
		}
		return nil, answerError(ctx, c, err)
	}
	l.SetTimeout(max(requestTimeout, c.timeout()))
	return cn, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || strings.Contains(err.Error(), "timed out")
}

// SIDString renders a binary Windows security identifier (objectSid) as
// S-1-5-21-…; ok is false when b is not a SID.
func SIDString(b []byte) (string, bool) {
	if len(b) < 8 || b[0] != 1 {
		return "", false
	}
	n := int(b[1])
	if len(b) != 8+4*n {
		return "", false
	}
	var auth uint64
	for _, x := range b[2:8] {
		auth = auth<<8 | uint64(x)
	}
	var sb strings.Builder
	sb.WriteString("S-1-")
	sb.WriteString(strconv.FormatUint(auth, 10))
	for i := 0; i < n; i++ {
		sb.WriteByte('-')
		sb.WriteString(strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b[8+4*i:])), 10))
	}
	return sb.String(), true
}

// guidString renders a binary AD objectGUID in its usual form.
func guidString(b []byte) string {
	if len(b) != 16 {
		return ""
	}
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", binary.LittleEndian.Uint32(b[0:4]), binary.LittleEndian.Uint16(b[4:6]),
		binary.LittleEndian.Uint16(b[6:8]), b[8:10], b[10:16])
}

// externalID is objectSid as a string SID, else the configured id attribute.
func externalID(c Config, e *ldap.Entry) string {
	if sid, ok := SIDString(e.GetRawAttributeValue("objectSid")); ok {
		return sid
	}
	attr := c.idAttr()
	if strings.EqualFold(attr, "objectGUID") {
		return guidString(e.GetRawAttributeValue("objectGUID"))
	}
	return strings.TrimSpace(e.GetEqualFoldAttributeValue(attr))
}

// normDN is the comparable form of a DN (attribute types and values folded);
// an unparsable DN is only lower-cased.
func normDN(dn string) string {
	d, err := ldap.ParseDN(dn)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(dn))
	}
	rdns := make([]string, len(d.RDNs))
	for i, r := range d.RDNs {
		parts := make([]string, len(r.Attributes))
		for j, a := range r.Attributes {
			parts[j] = strings.ToLower(a.Type) + "=" + strings.ToLower(a.Value)
		}
		rdns[i] = strings.Join(parts, "+")
	}
	return strings.Join(rdns, ",")
}

// filterWith fills a filter placeholder with an escaped value (RFC 4515).
func filterWith(filter, placeholder, value string) string {
	return strings.ReplaceAll(filter, placeholder, ldap.EscapeFilter(value))
}
