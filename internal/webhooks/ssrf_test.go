package webhooks

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddressAllowed(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want bool
	}{
		{"93.184.216.34", true},
		{"8.8.8.8", true},
		{"2606:4700::1111", true},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"169.254.0.1", false},
		{"100.64.0.1", false}, // carrier-grade NAT
		{"0.0.0.0", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"198.18.0.1", false},
		{"::1", false},
		{"::", false},
		{"fe80::1", false},
		{"fd00::1", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:169.254.169.254", false},
		{"::ffff:93.184.216.34", true},
		{"64:ff9b::7f00:1", false},  // NAT64 of 127.0.0.1
		{"64:ff9b:1::a00:1", false}, // local-use NAT64
		{"::127.0.0.1", false},      // IPv4-compatible loopback
		{"::10.0.0.1", false},
		{"::ffff:0:7f00:1", false}, // IPv4-translated loopback
		{"::ffff:0:a9fe:a9fe", false},
		{"2002:7f00:1::1", false},                       // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},                    // 6to4 of the metadata address
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
		{"fec0::1", false},                              // site-local
		{"100::1", false},                               // discard
		{"2a00:1450:4001::1", true},
	} {
		if got := AddressAllowed(netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("AddressAllowed(%s) = %v, want %v", c.ip, got, c.want)
		}
	}
	if AddressAllowed(netip.Addr{}) {
		t.Error("the zero address is allowed")
	}
}

func TestCheckURL(t *testing.T) {
	resolve := map[string][]netip.Addr{
		"public.example":   {netip.MustParseAddr("93.184.216.34")},
		"inside.example":   {netip.MustParseAddr("10.0.0.5")},
		"mixed.example":    {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")},
		"metadata.example": {netip.MustParseAddr("169.254.169.254")},
	}
	lookup := func(h string) ([]netip.Addr, error) { return resolve[h], nil }
	hosts := ParseHosts(" 127.0.0.1 , Hooks.Internal ,[::1]")
	for _, c := range []struct {
		url     string
		refused bool // ErrRefusedAddress
		bad     bool // other error
	}{
		{url: "https://public.example/hook"},
		{url: "http://public.example:8080/hook?x=1"},
		{url: "http://127.0.0.1:9000/x"}, // allowed host
		{url: "http://hooks.internal/x"}, // allowed host, any case
		{url: "http://[::1]:9000/x"},     // allowed host
		{url: "http://127.0.0.2/x", refused: true},
		{url: "http://169.254.169.254/latest/meta-data", refused: true},
		{url: "http://localhost:8080/x", refused: true},
		{url: "http://api.localhost/x", refused: true},
		{url: "http://inside.example/x", refused: true},
		{url: "http://mixed.example/x", refused: true},
		{url: "http://metadata.example/x", refused: true},
		{url: "http://[fe80::1]/x", refused: true},
		{url: "http://0x7f000001/x"}, // a name here; the dialer checks what it resolves to
		{url: "ftp://public.example/x", bad: true},
		{url: "/relative", bad: true},
		{url: "https://user:pw@public.example/x", bad: true},
		{url: "https:///nohost", bad: true},
	} {
		_, err := hosts.CheckURL(c.url, lookup)
		switch {
		case c.refused && !errors.Is(err, ErrRefusedAddress):
			t.Errorf("%s: %v, want refused", c.url, err)
		case c.bad && (err == nil || errors.Is(err, ErrRefusedAddress)):
			t.Errorf("%s: %v, want a validation error", c.url, err)
		case !c.refused && !c.bad && err != nil:
			t.Errorf("%s: %v, want accepted", c.url, err)
		}
	}
}

func TestDialControl(t *testing.T) {
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34:443", true},
		{"[2606:4700::1111]:443", true},
		{"127.0.0.1:80", false},
		{"169.254.169.254:80", false},
		{"[::1]:80", false},
		{"10.0.0.1:8080", false},
		{"nonsense", false},
	} {
		err := control("tcp", c.addr, nil)
		if (err == nil) != c.ok {
			t.Errorf("control(%s) = %v, want ok=%v", c.addr, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("control(%s): %v is not ErrRefusedAddress", c.addr, err)
		}
	}
}
