// Package metrics exposes the service's Prometheus metrics on a separate
// listener (CORE_METRICS_ADDR, off by default, so it is never public by
// accident): HTTP requests by route template, method and status class, jobs by
// type and outcome, job queue depth, SSE clients, the database pool, the
// application log writer, and Go runtime and process collectors.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the registry of one process.
type Metrics struct {
	reg  *prometheus.Registry
	http *prometheus.HistogramVec
	jobs *prometheus.HistogramVec
}

// New builds the registry with the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.http = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "core_http_request_duration_seconds",
		Help:    "HTTP requests by route template (ServeMux pattern), method and status class.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method", "status"})
	m.jobs = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "core_job_duration_seconds",
		Help:    "Job runs by type and outcome (succeeded, failed, retried).",
		Buckets: []float64{.01, .05, .1, .5, 1, 5, 15, 60, 300},
	}, []string{"type", "outcome"})
	m.reg.MustRegister(m.http, m.jobs)
	return m
}

// StatusClass is "2xx", "4xx" … of a status code.
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status/100) + "xx"
}

// ObserveHTTP records one finished request (a web.RouteObserver).
func (m *Metrics) ObserveHTTP(route, method string, status int, elapsed time.Duration) {
	m.http.WithLabelValues(route, method, StatusClass(status)).Observe(elapsed.Seconds())
}

// ObserveJob records one job run.
func (m *Metrics) ObserveJob(jobType, outcome string, elapsed time.Duration) {
	m.jobs.WithLabelValues(jobType, outcome).Observe(elapsed.Seconds())
}

// Gauge registers a gauge read at scrape time.
func (m *Metrics) Gauge(name, help string, fn func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// Counter registers a counter read at scrape time (fn must never decrease).
func (m *Metrics) Counter(name, help string, fn func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, fn))
}

// GaugeVec registers a labelled gauge whose values are read at scrape time.
func (m *Metrics) GaugeVec(name, help, label string, fn func() map[string]float64) {
	m.reg.MustRegister(&vecCollector{desc: prometheus.NewDesc(name, help, []string{label}, nil), fn: fn})
}

type vecCollector struct {
	desc *prometheus.Desc
	fn   func() map[string]float64
}

func (c *vecCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *vecCollector) Collect(ch chan<- prometheus.Metric) {
	for k, v := range c.fn() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, k)
	}
}

// Handler serves the exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: nil})
}

// Serve runs the /metrics listener on addr until ctx ends.
func (m *Metrics) Serve(ctx context.Context, addr string) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics listener %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	slog.Info("metrics listening", "addr", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics listener: %w", err)
	}
	return nil
}
