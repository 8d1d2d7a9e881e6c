// Package webhooks sends outgoing webhooks: the SSRF-safe HTTP client, the
// HMAC-SHA256 signature and the per-receiver delivery log. Which events reach
// which receiver, and when, is the events package's work (job type
// webhooks.post); this package only knows how to deliver one request safely.
package webhooks

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrRefusedAddress marks a target address the SSRF rule refuses.
var ErrRefusedAddress = errors.New("webhook target refused: private, loopback, link-local or otherwise internal address")

// blocked are the networks a webhook may not reach unless its host is allowed:
// loopback, private (RFC 1918, unique local), link-local (cloud metadata at
// 169.254.169.254), carrier-grade NAT, "this network", multicast, reserved;
// and every IPv6 range that carries an IPv4 address inside it (IPv4-
// compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, NAT64, 6to4,
// Teredo), the deprecated site-local fec0::/10 and the discard prefix, so
// no spelling of an internal address gets through.
var blocked = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		"::/96", "::1/128", "::ffff:0:0:0/96", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
		"64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:db8::/32", "2002::/16",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// AddressAllowed reports whether a webhook may connect to ip (the SSRF rule,
// applied to every address a connection is actually made to).
func AddressAllowed(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// Hosts is the administrator's list of hosts exempt from the address rule
// (CORE_WEBHOOK_ALLOWED_HOSTS): exact host names or IP addresses, no ports.
type Hosts map[string]bool

// ParseHosts reads a comma-separated list.
func ParseHosts(s string) Hosts {
	h := Hosts{}
	for _, v := range strings.Split(s, ",") {
		v = strings.ToLower(strings.TrimSpace(v))
		v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		if v != "" {
			h[v] = true
		}
	}
	return h
}

// Allows reports whether host (without port) is exempt.
func (h Hosts) Allows(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return h[host]
}

// CheckURL validates a receiver's target: absolute http(s) URL without
// credentials, and, unless its host is allowed, no literal internal address
// and no name that resolves to one now (the dialer checks again on every
// connection, so a name that changes its answer later is still refused).
func (h Hosts) CheckURL(raw string, lookup func(host string) ([]netip.Addr, error)) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("url must be an absolute http or https URL")
	}
	if u.User != nil {
		return nil, fmt.Errorf("url must not carry credentials (use the secret)")
	}
	host := u.Hostname()
	if h.Allows(host) {
		return u, nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !AddressAllowed(ip) {
			return nil, ErrRefusedAddress
		}
		return u, nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return nil, ErrRefusedAddress
	}
	if lookup != nil {
		addrs, err := lookup(host)
		if err == nil {
			for _, a := range addrs {
				if !AddressAllowed(a) {
					return nil, ErrRefusedAddress
				}
			}
		}
	}
	return u, nil
}

// control is the net.Dialer Control hook: it sees the address a connection
// is about to be made to, after DNS, and refuses internal ones.
func control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return ErrRefusedAddress
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !AddressAllowed(ip) {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, host)
	}
	return nil
}
