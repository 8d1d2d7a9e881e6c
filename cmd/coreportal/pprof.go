package main

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// startPprof serves Go's profiler on a loopback address when CORE_PPROF_ADDR
// is set (diagnostics and benchmarks; never on the API listener).
func startPprof(addr string) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/heap", pprof.Index)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		slog.Info("profiler listening", "addr", addr)
		if err := srv.ListenAndServe(); err != nil {
			slog.Error("profiler", "err", err)
		}
	}()
}
