package config

import (
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "defaults", check: func(t *testing.T, c Config) {
			if c.Addr != ":8080" || c.DataDir != "./data" || c.SeedAdminLogin != "admin" || c.DatabaseURL != "" {
				t.Fatalf("defaults wrong: %+v", c)
			}
		}},
		{name: "flag overrides env", env: map[string]string{"CORE_ADDR": ":9000"}, args: []string{"-addr", "127.0.0.1:9001"},
			check: func(t *testing.T, c Config) {
				if c.Addr != "127.0.0.1:9001" {
					t.Fatalf("addr %q", c.Addr)
				}
			}},
		{name: "bad addr", env: map[string]string{"CORE_ADDR": "nope"}, wantErr: "CORE_ADDR"},
		{name: "bad database url", env: map[string]string{"DATABASE_URL": "mysql://x"}, wantErr: "DATABASE_URL"},
		{name: "bad bus url", env: map[string]string{"CORE_BUS_URL": "nats://x"}, wantErr: "CORE_BUS_URL"},
		{name: "bad log level", env: map[string]string{"CORE_LOG_LEVEL": "loud"}, wantErr: "CORE_LOG_LEVEL"},
		{name: "short jwt secret", env: map[string]string{"CORE_JWT_SECRET": "short"}, wantErr: "CORE_JWT_SECRET"},
		{name: "short backup key", env: map[string]string{"CORE_BACKUP_KEY": "fifteen chars.."}, wantErr: "CORE_BACKUP_KEY"},
		{name: "trusted proxies", env: map[string]string{"CORE_TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.5"},
			check: func(t *testing.T, c Config) {
				if len(c.TrustedProxies) != 2 || c.TrustedProxies[1].String() != "192.168.1.5/32" {
					t.Fatalf("proxies %v", c.TrustedProxies)
				}
			}},
		{name: "bad trusted proxy", env: map[string]string{"CORE_TRUSTED_PROXIES": "10.0.0.0/8,nope"}, wantErr: "CORE_TRUSTED_PROXIES"},
		{name: "public url https", env: map[string]string{"CORE_PUBLIC_URL": "https://portal.example.com/"},
			check: func(t *testing.T, c Config) {
				if c.PublicURL != "https://portal.example.com" || !c.PublicHTTPS() {
					t.Fatalf("public url %q https=%v", c.PublicURL, c.PublicHTTPS())
				}
			}},
		{name: "public url http", env: map[string]string{"CORE_PUBLIC_URL": "http://intranet"},
			check: func(t *testing.T, c Config) {
				if c.PublicHTTPS() {
					t.Fatal("http public url taken for https")
				}
			}},
		{name: "bad public url scheme", env: map[string]string{"CORE_PUBLIC_URL": "ftp://portal"}, wantErr: "CORE_PUBLIC_URL"},
		{name: "public url without host", env: map[string]string{"CORE_PUBLIC_URL": "https://"}, wantErr: "CORE_PUBLIC_URL"},
		{name: "live stream caps", env: map[string]string{"CORE_LIVE_MAX_STREAMS": "50", "CORE_LIVE_MAX_STREAMS_PER_USER": "0", "CORE_LIVE_RECHECK_INTERVAL": "5s"},
			check: func(t *testing.T, c Config) {
				if c.LiveMaxStreams != 50 || c.LiveMaxStreamsPerUser != 0 || c.LiveRecheck != 5*time.Second {
					t.Fatalf("live %d %d %v", c.LiveMaxStreams, c.LiveMaxStreamsPerUser, c.LiveRecheck)
				}
			}},
		{name: "negative live cap", env: map[string]string{"CORE_LIVE_MAX_STREAMS": "-1"}, wantErr: "CORE_LIVE_MAX_STREAMS"},
		{name: "live recheck too long", env: map[string]string{"CORE_LIVE_RECHECK_INTERVAL": "1m"}, wantErr: "CORE_LIVE_RECHECK_INTERVAL"},
		{name: "bad smtp port", env: map[string]string{"SMTP_PORT": "x"}, wantErr: "SMTP_PORT"},
		{name: "several errors reported together", env: map[string]string{"SMTP_PORT": "x", "CORE_LOG_FORMAT": "xml"}, wantErr: "CORE_LOG_FORMAT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(func(k string) string { return c.env[k] }, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want mention of %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
		})
	}
}
