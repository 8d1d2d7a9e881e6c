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

// dial connects (within connectTimeoutMs), upgrades with StartTLS when set and
// binds as the service account. requestTimeout bounds each later request.
// Errors are fault UNAVAILABLE in words an administrator understands.
func dial(ctx context.Context, c Config, requestTimeout time.Duration) (*conn, error) {
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
			return nil, describe(c, r.err)
		}
		l = r.l
	case <-dctx.Done():
		go func() {
			if r := <-ch; r.l != nil {
				_ = r.l.Close()
			}
		}()
		return nil, describe(c, context.DeadlineExceeded)
	}
	// a cancelled request (client gone, job stopped) closes the connection
	cn := &conn{Conn: l, stop: context.AfterFunc(ctx, func() { _ = l.Close() })}
	l.SetTimeout(c.timeout())
	if c.StartTLS {
		if err := l.StartTLS(tc); err != nil {
			cn.close()
			return nil, describe(c, err)
		}
	}
	if err := l.Bind(c.BindDN, c.BindPassword); err != nil {
		cn.close()
		if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
			return nil, fault.Unavailable("the directory refused the service account (bindDn %s): invalid credentials", c.BindDN)
		}
		return nil, describe(c, err)
	}
	l.SetTimeout(max(requestTimeout, c.timeout()))
	return cn, nil
}

// describe turns a connection error into an UNAVAILABLE fault whose message
// says what went wrong (unreachable, timeout, certificate) without internals.
func describe(c Config, err error) error {
	host := c.URL
	if u, perr := url.Parse(c.URL); perr == nil {
		host = u.Host
	}
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var opErr *net.OpError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &invalid) || errors.As(err, &certErr) ||
		strings.Contains(err.Error(), "x509: ") || strings.Contains(err.Error(), "failed to verify certificate"):
		return fault.Unavailable("the TLS certificate of %s is not trusted: %s (set tlsCaCert to the CA bundle that signed it; certificates are never skipped)", host, certReason(err))
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return fault.Unavailable("the directory server %s did not answer within %d ms", host, c.timeoutMs())
	case errors.As(err, &dnsErr):
		return fault.Unavailable("the directory server name %s cannot be resolved", host)
	case errors.As(err, &opErr):
		return fault.Unavailable("cannot connect to the directory server %s: %s", host, opErrReason(opErr))
	case ldap.IsErrorWithCode(err, ldap.ErrorNetwork):
		return fault.Unavailable("the connection to the directory server %s failed: %s", host, shortLDAP(err))
	}
	return fault.Unavailable("the directory server %s answered with an error: %s", host, shortLDAP(err))
}

func certReason(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknownCA):
		return "it is signed by an unknown authority"
	case errors.As(err, &hostErr):
		return "it is not valid for this host name"
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return "it has expired or is not yet valid"
		}
		return "it is invalid"
	}
	// StartTLS errors reach us as text only
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unknown authority"):
		return "it is signed by an unknown authority"
	case strings.Contains(msg, "not valid for"):
		return "it is not valid for this host name"
	case strings.Contains(msg, "expired"):
		return "it has expired or is not yet valid"
	}
	return "verification failed"
}

func opErrReason(e *net.OpError) string {
	msg := e.Err.Error()
	switch {
	case strings.Contains(msg, "refused"):
		return "connection refused"
	case strings.Contains(msg, "unreachable"):
		return "network unreachable"
	case strings.Contains(msg, "reset"):
		return "connection reset"
	}
	return msg
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || strings.Contains(err.Error(), "timed out")
}

func shortLDAP(err error) string {
	var le *ldap.Error
	if errors.As(err, &le) {
		text := ldap.LDAPResultCodeMap[le.ResultCode]
		if le.Err != nil {
			return strings.TrimPrefix(le.Err.Error(), "ldap: ")
		}
		return text
	}
	return err.Error()
}

// isDown says whether err means the directory could not be used (as opposed
// to an answer about the request).
func isDown(err error) bool {
	return fault.Is(err, fault.CodeUnavailable) || ldap.IsErrorWithCode(err, ldap.ErrorNetwork) ||
		ldap.IsErrorWithCode(err, ldap.LDAPResultUnavailable) || ldap.IsErrorWithCode(err, ldap.LDAPResultBusy) ||
		ldap.IsErrorWithCode(err, ldap.LDAPResultServerDown)
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
