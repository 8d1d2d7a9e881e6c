// Package config reads the service configuration from the environment
// (CONTRACT.md, "Build and start"), lets flags override it and validates it.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"coreportal/internal/vendorkey"
)

// Config is the whole process configuration.
type Config struct {
	Addr              string
	DataDir           string
	DatabaseURL       string
	BusURL            string
	BlobURL           string
	SeedAdminLogin    string
	SeedAdminPassword string
	JWTSecret         string
	BackupKey         string
	TokenTTL          time.Duration
	UpdateRunnerToken string
	LicensePublicKey  string
	UpdatePublicKey   string
	ReleaseChannel    string
	OfficeURL         string
	VendorURL         string
	ReleaseFile       string
	ModuleCatalogPath string
	ModuleCatalogURL  string
	SMTPHost          string
	SMTPPort          int
	SMTPUser          string
	SMTPPassword      string
	SMTPFrom          string
	LogLevel          slog.Level
	LogFormat         string
	AccessLog         bool
	MaxUploadBytes    int64
	PprofAddr         string
	MetricsAddr       string // Prometheus /metrics listener; empty = off
	TrustedProxies    []netip.Prefix
	// DirectoryAllowedHosts are the directory servers the portal may
	// connect to (CORE_DIRECTORY_ALLOWED_HOSTS, read by the directory
	// package; empty = any).
	DirectoryAllowedHosts string
	// KerberosKeytab (CORE_KERBEROS_KEYTAB) enables GET /auth/negotiate with
	// the service principal KerberosSPN (CORE_KERBEROS_SPN, default the
	// keytab's first) and the allowed clock difference KerberosMaxSkew
	// (CORE_KERBEROS_MAX_SKEW, default 5m).
	KerberosKeytab  string
	KerberosSPN     string
	KerberosMaxSkew time.Duration
	// PublicURL is the address users reach the portal at (CORE_PUBLIC_URL);
	// when it is https the session cookie is always Secure.
	PublicURL string
	// LiveMaxStreams and LiveMaxStreamsPerUser cap the open items/live
	// streams of one instance (0 = no cap); LiveRecheck is how often an open
	// stream re-checks its caller (at most 30 s).
	LiveMaxStreams        int
	LiveMaxStreamsPerUser int
	LiveRecheck           time.Duration
	// BodyGrace and BodyMinRate pace request bodies (web.BodyLimits).
	BodyGrace   time.Duration
	BodyMinRate int64
	// IdleTimeout closes keep-alive connections that stay unused.
	IdleTimeout time.Duration
	// TestSaveDelay slows every list item save (test hook, never set in production).
	TestSaveDelay time.Duration
	// JobLease is how long a claimed job stays with its worker without a
	// heartbeat; JobHeartbeat is how often a worker renews the leases of
	// the jobs it runs (CORE_JOB_LEASE, CORE_JOB_HEARTBEAT).
	JobLease     time.Duration
	JobHeartbeat time.Duration
	// UploadSweepAge is the age past which unfinished multipart uploads and
	// temporary files of interrupted writes are removed (CORE_UPLOAD_SWEEP_AGE).
	UploadSweepAge time.Duration
	// Integrations: webhooks and CORS (integrations.go).
	Integrations Integrations
	// PreviewSoffice is the LibreOffice binary of PDF and Office previews
	// (CORE_PREVIEW_SOFFICE: empty = soffice from PATH, off = none);
	// PreviewTimeout and PreviewMemoryMB bound one conversion.
	PreviewSoffice  string
	PreviewTimeout  time.Duration
	PreviewMemoryMB int
	// OfficeTokenTTL is the lifetime of a WOPI access token (CORE_OFFICE_TOKEN_TTL).
	OfficeTokenTTL time.Duration
}

// Load reads the environment through getenv, then applies flags from args.
func Load(getenv func(string) string, args []string) (Config, error) {
	return LoadFlags(getenv, flag.NewFlagSet("coreportal", flag.ContinueOnError), args)
}

// LoadFlags is Load with a flag set the caller may already have given its own
// flags: the configuration flags (AddFlags) are added to fs, args are parsed
// into both, and flag.ErrHelp is returned as is for -h and --help.
func LoadFlags(getenv func(string) string, fs *flag.FlagSet, args []string) (Config, error) {
	env := func(key, def string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return def
	}
	var errs []error
	c := Config{
		Addr:                  env("CORE_ADDR", ":8080"),
		DataDir:               env("CORE_DATA_DIR", "./data"),
		DatabaseURL:           env("DATABASE_URL", ""),
		BusURL:                env("CORE_BUS_URL", ""),
		BlobURL:               env("CORE_BLOB_URL", ""),
		SeedAdminLogin:        env("SEED_ADMIN_LOGIN", "admin"),
		SeedAdminPassword:     getenv("SEED_ADMIN_PASSWORD"),
		JWTSecret:             getenv("CORE_JWT_SECRET"),
		BackupKey:             getenv("CORE_BACKUP_KEY"),
		UpdateRunnerToken:     getenv("CORE_UPDATE_RUNNER_TOKEN"),
		LicensePublicKey:      env("CORE_LICENSE_PUBLIC_KEY", ""),
		UpdatePublicKey:       env("CORE_UPDATE_PUBLIC_KEY", ""),
		ReleaseChannel:        env("CORE_RELEASE_CHANNEL", "stable"),
		OfficeURL:             env("CORE_OFFICE_URL", ""),
		VendorURL:             env("CORE_VENDOR_URL", ""),
		ReleaseFile:           env("CORE_RELEASE_FILE", ""),
		ModuleCatalogPath:     env("MODULE_CATALOG_PATH", ""),
		ModuleCatalogURL:      env("MODULE_CATALOG_URL", ""),
		SMTPHost:              env("SMTP_HOST", ""),
		SMTPUser:              env("SMTP_USER", ""),
		SMTPPassword:          getenv("SMTP_PASSWORD"),
		SMTPFrom:              env("SMTP_FROM", ""),
		LogFormat:             strings.ToLower(env("CORE_LOG_FORMAT", "json")),
		PprofAddr:             env("CORE_PPROF_ADDR", ""),
		MetricsAddr:           env("CORE_METRICS_ADDR", ""),
		PublicURL:             strings.TrimRight(env("CORE_PUBLIC_URL", ""), "/"),
		DirectoryAllowedHosts: env("CORE_DIRECTORY_ALLOWED_HOSTS", ""),
	}
	c.SMTPPort = intVar(env("SMTP_PORT", "0"), "SMTP_PORT", &errs)
	c.TokenTTL = durVar(env("CORE_TOKEN_TTL", "12h"), "CORE_TOKEN_TTL", &errs)
	c.KerberosKeytab, c.KerberosSPN = env("CORE_KERBEROS_KEYTAB", ""), env("CORE_KERBEROS_SPN", "")
	c.KerberosMaxSkew = durVar(env("CORE_KERBEROS_MAX_SKEW", "5m"), "CORE_KERBEROS_MAX_SKEW", &errs)
	c.MaxUploadBytes = int64(intVar(env("CORE_MAX_UPLOAD_MB", "100"), "CORE_MAX_UPLOAD_MB", &errs)) << 20
	c.BodyGrace = durVar(env("CORE_BODY_GRACE", "10s"), "CORE_BODY_GRACE", &errs)
	c.BodyMinRate = int64(intVar(env("CORE_BODY_MIN_RATE", "1024"), "CORE_BODY_MIN_RATE", &errs))
	c.IdleTimeout = durVar(env("CORE_IDLE_TIMEOUT", "120s"), "CORE_IDLE_TIMEOUT", &errs)
	c.TestSaveDelay = durVar(env("CORE_TEST_SAVE_DELAY", "0s"), "CORE_TEST_SAVE_DELAY", &errs)
	c.TrustedProxies = prefixesVar(env("CORE_TRUSTED_PROXIES", ""), "CORE_TRUSTED_PROXIES", &errs)
	c.LiveMaxStreams = intVar(env("CORE_LIVE_MAX_STREAMS", "1000"), "CORE_LIVE_MAX_STREAMS", &errs)
	c.LiveMaxStreamsPerUser = intVar(env("CORE_LIVE_MAX_STREAMS_PER_USER", "20"), "CORE_LIVE_MAX_STREAMS_PER_USER", &errs)
	c.LiveRecheck = durVar(env("CORE_LIVE_RECHECK_INTERVAL", "30s"), "CORE_LIVE_RECHECK_INTERVAL", &errs)
	c.JobLease = durVar(env("CORE_JOB_LEASE", "30s"), "CORE_JOB_LEASE", &errs)
	c.JobHeartbeat = durVar(env("CORE_JOB_HEARTBEAT", "10s"), "CORE_JOB_HEARTBEAT", &errs)
	c.OfficeTokenTTL = durVar(env("CORE_OFFICE_TOKEN_TTL", "2h"), "CORE_OFFICE_TOKEN_TTL", &errs)
	c.PreviewSoffice = env("CORE_PREVIEW_SOFFICE", "")
	c.PreviewTimeout = durVar(env("CORE_PREVIEW_TIMEOUT", "60s"), "CORE_PREVIEW_TIMEOUT", &errs)
	c.PreviewMemoryMB = intVar(env("CORE_PREVIEW_MEMORY_MB", "2048"), "CORE_PREVIEW_MEMORY_MB", &errs)
	c.UploadSweepAge = durVar(env("CORE_UPLOAD_SWEEP_AGE", "24h"), "CORE_UPLOAD_SWEEP_AGE", &errs)
	loadIntegrations(env, &c, &errs)
	c.AccessLog = boolVar(env("CORE_ACCESS_LOG", "true"), "CORE_ACCESS_LOG", &errs)
	if err := c.LogLevel.UnmarshalText([]byte(env("CORE_LOG_LEVEL", "info"))); err != nil {
		errs = append(errs, fmt.Errorf("CORE_LOG_LEVEL: %q is not one of debug, info, warn, error", getenv("CORE_LOG_LEVEL")))
	}

	AddFlags(fs, &c)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("flags: %w", err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("flags: unexpected argument %q", fs.Arg(0))
	}
	if c.ReleaseFile == "" {
		if exe, err := os.Executable(); err == nil {
			c.ReleaseFile = filepath.Join(filepath.Dir(exe), "RELEASE")
		}
	}
	errs = append(errs, c.validate()...)
	return c, errors.Join(errs...)
}

// FlagNames are the configuration flags every command accepts.
var FlagNames = []string{"addr", "data-dir", "database-url", "bus-url"}

// AddFlags adds the configuration flags (FlagNames) to fs, each defaulting
// to c's value (read from the environment) and overriding it when given.
func AddFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (CORE_ADDR)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "data folder (CORE_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "PostgreSQL URL; empty = embedded SQLite (DATABASE_URL)")
	fs.StringVar(&c.BusURL, "bus-url", c.BusURL, "redis:// URL of the shared bus (CORE_BUS_URL)")
}

func (c Config) validate() []error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("CORE_ADDR: %q is not host:port", c.Addr))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("CORE_METRICS_ADDR: %q must be host:port", c.MetricsAddr))
		}
	}
	if c.PprofAddr != "" {
		if host, _, err := net.SplitHostPort(c.PprofAddr); err != nil || (host != "127.0.0.1" && host != "localhost" && host != "::1") {
			errs = append(errs, fmt.Errorf("CORE_PPROF_ADDR: %q must be a loopback host:port", c.PprofAddr))
		}
	}
	if c.BodyGrace <= 0 || c.BodyMinRate <= 0 || c.IdleTimeout <= 0 {
		errs = append(errs, errors.New("CORE_BODY_GRACE, CORE_BODY_MIN_RATE and CORE_IDLE_TIMEOUT must be positive"))
	}
	if c.DatabaseURL != "" && !hasScheme(c.DatabaseURL, "postgres", "postgresql") {
		errs = append(errs, errors.New("DATABASE_URL: must start with postgres:// or be empty for the embedded database"))
	}
	if c.BusURL != "" && !hasScheme(c.BusURL, "redis", "rediss") {
		errs = append(errs, errors.New("CORE_BUS_URL: must start with redis:// or be empty for the in-process bus"))
	}
	if c.BlobURL != "" && !hasScheme(c.BlobURL, "s3", "file") {
		errs = append(errs, errors.New("CORE_BLOB_URL: must start with s3:// or file:// or be empty"))
	}
	if c.VendorURL != "" && !hasScheme(c.VendorURL, "http", "https") {
		errs = append(errs, errors.New("CORE_VENDOR_URL: must be an http(s) URL"))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || !hasScheme(c.PublicURL, "http", "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("CORE_PUBLIC_URL: %q must be an absolute http(s) URL such as https://portal.example.com", c.PublicURL))
		}
	}
	if c.OfficeURL != "" && !hasScheme(c.OfficeURL, "http", "https") {
		errs = append(errs, errors.New("CORE_OFFICE_URL: must be an http(s) URL"))
	}
	for name, v := range map[string]string{"CORE_LICENSE_PUBLIC_KEY": c.LicensePublicKey, "CORE_UPDATE_PUBLIC_KEY": c.UpdatePublicKey} {
		if _, err := vendorkey.Parse(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
	}
	if c.ReleaseChannel == "*" || strings.ContainsAny(c.ReleaseChannel, " /?&#") {
		errs = append(errs, fmt.Errorf("CORE_RELEASE_CHANNEL: %q is not a channel name such as stable", c.ReleaseChannel))
	}
	if strings.TrimSpace(c.SeedAdminLogin) == "" || strings.EqualFold(c.SeedAdminLogin, "core-system") {
		errs = append(errs, errors.New("SEED_ADMIN_LOGIN: must be a non-empty login other than core-system"))
	}
	if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
		errs = append(errs, errors.New("CORE_JWT_SECRET: must be at least 32 characters"))
	}
	if c.BackupKey != "" && utf8.RuneCountInString(c.BackupKey) < 16 {
		errs = append(errs, errors.New("CORE_BACKUP_KEY: must be at least 16 characters"))
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("CORE_LOG_FORMAT: %q is not json or text", c.LogFormat))
	}
	if c.SMTPPort < 0 || c.SMTPPort > 65535 {
		errs = append(errs, fmt.Errorf("SMTP_PORT: %d is not a port", c.SMTPPort))
	}
	if c.TokenTTL < time.Minute {
		errs = append(errs, errors.New("CORE_TOKEN_TTL: must be at least 1m"))
	}
	if c.LiveMaxStreams < 0 || c.LiveMaxStreamsPerUser < 0 {
		errs = append(errs, errors.New("CORE_LIVE_MAX_STREAMS, CORE_LIVE_MAX_STREAMS_PER_USER: must be 0 (no cap) or positive"))
	}
	if c.LiveRecheck < 100*time.Millisecond || c.LiveRecheck > 30*time.Second {
		errs = append(errs, errors.New("CORE_LIVE_RECHECK_INTERVAL: must be between 100ms and 30s"))
	}
	if c.MaxUploadBytes <= 0 {
		errs = append(errs, errors.New("CORE_MAX_UPLOAD_MB: must be positive"))
	}
	if c.UploadSweepAge <= 0 {
		errs = append(errs, errors.New("CORE_UPLOAD_SWEEP_AGE: must be positive"))
	}
	if c.JobHeartbeat < 100*time.Millisecond || c.JobLease < 2*c.JobHeartbeat {
		errs = append(errs, errors.New("CORE_JOB_HEARTBEAT, CORE_JOB_LEASE: the heartbeat must be at least 100ms and the lease at least twice the heartbeat"))
	}
	return errs
}

func hasScheme(raw string, schemes ...string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, s := range schemes {
		if strings.EqualFold(u.Scheme, s) {
			return true
		}
	}
	return false
}

func intVar(v, name string, errs *[]error) int {
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: %q is not a whole number", name, v))
	}
	return n
}

func durVar(v, name string, errs *[]error) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: %q is not a duration such as 12h", name, v))
	}
	return d
}

// prefixesVar parses a comma-separated list of IP addresses and CIDR ranges.
func prefixesVar(v, name string, errs *[]error) []netip.Prefix {
	var out []netip.Prefix
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %q is not an IP address or CIDR range", name, f))
			continue
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out
}

func boolVar(v, name string, errs *[]error) bool {
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: %q is not true or false", name, v))
	}
	return b
}

// PublicHTTPS reports whether users reach the portal over https (CORE_PUBLIC_URL).
func (c Config) PublicHTTPS() bool { return hasScheme(c.PublicURL, "https") }

// SQLitePath is where the embedded database lives.
func (c Config) SQLitePath() string { return filepath.Join(c.DataDir, "core.db") }
