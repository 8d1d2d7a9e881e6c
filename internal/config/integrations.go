package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Integrations is the configuration of outgoing webhooks and of browsers on
// other origins (issue 30).
type Integrations struct {
	// WebhookAllowedHosts are host names or addresses webhooks may reach even
	// when they are private, loopback or link-local (CORE_WEBHOOK_ALLOWED_HOSTS).
	WebhookAllowedHosts string
	// WebhookBackoff is the delay before a failed delivery's second attempt,
	// doubled for each further one (CORE_WEBHOOK_BACKOFF, default 10s).
	WebhookBackoff time.Duration
	// WebhookTimeout bounds one delivery attempt (CORE_WEBHOOK_TIMEOUT, default 10s).
	WebhookTimeout time.Duration
	// CORSOrigins are the exact origins (scheme://host[:port]) allowed to call
	// the API from a browser, with credentials (CORE_CORS_ORIGINS; empty = none).
	CORSOrigins []string
}

func loadIntegrations(env func(key, def string) string, c *Config, errs *[]error) {
	c.Integrations.WebhookAllowedHosts = env("CORE_WEBHOOK_ALLOWED_HOSTS", "")
	c.Integrations.WebhookBackoff = durVar(env("CORE_WEBHOOK_BACKOFF", "10s"), "CORE_WEBHOOK_BACKOFF", errs)
	c.Integrations.WebhookTimeout = durVar(env("CORE_WEBHOOK_TIMEOUT", "10s"), "CORE_WEBHOOK_TIMEOUT", errs)
	if c.Integrations.WebhookBackoff < 10*time.Millisecond || c.Integrations.WebhookTimeout < 100*time.Millisecond {
		*errs = append(*errs, fmt.Errorf("CORE_WEBHOOK_BACKOFF must be at least 10ms and CORE_WEBHOOK_TIMEOUT at least 100ms"))
	}
	for _, o := range strings.Split(env("CORE_CORS_ORIGINS", ""), ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || o == "*" {
			*errs = append(*errs, fmt.Errorf("CORE_CORS_ORIGINS: %q is not an exact origin like https://app.example.com", o))
			continue
		}
		c.Integrations.CORSOrigins = append(c.Integrations.CORSOrigins, strings.ToLower(u.Scheme+"://"+u.Host))
	}
}
