package applog

import (
	"context"
	"io"
	"log/slog"
	"testing"
)

// BenchmarkRequestLine measures what the application-log tee adds to one
// request's log line (the access log line of internal/web, the only record
// a successful GET /auth/me produces, and only with CORE_ACCESS_LOG=true):
// tee=off is the process log alone (logTee nil), tee=on the same handler
// with the tee. The writer goroutine (redaction, batching) runs and is
// included in the cost; the database INSERT is not (write is a no-op).
//
//	go test -run '^$' -bench RequestLine -benchmem -count 5 ./internal/applog/
//
// bench/README.md relates the difference to the server CPU time of one
// /auth/me request measured by bench/authme.
func BenchmarkRequestLine(b *testing.B) {
	for _, c := range []struct {
		name  string
		level slog.Level // CORE_LOG_LEVEL
		set   *Settings  // nil: tee off
	}{
		{"processlog=warn/tee=off", slog.LevelWarn, nil},
		{"processlog=warn/tee=on", slog.LevelWarn, &Settings{MinLevel: "info", RedactEnabled: true}},
		{"processlog=info/tee=off", slog.LevelInfo, nil},
		{"processlog=info/tee=on", slog.LevelInfo, &Settings{MinLevel: "info", RedactEnabled: true}},
		{"processlog=warn/tee=on+includeCategories=http", slog.LevelWarn, &Settings{MinLevel: "info", RedactEnabled: true, IncludeCategories: []string{"http"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var tee *Tee
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			if c.set != nil {
				tee = NewTee("api", "bench")
				tee.Use(*c.set)
				go func() { tee.Run(ctx, func(context.Context, []Entry) error { return nil }); close(done) }()
			} else {
				close(done)
			}
			log := slog.New(Handler{Handler: slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: c.level}), Tee: tee})
			rctx := WithCorrelation(context.Background(), "0196a6c5-6f1e-7c2b-9d3e-5a4b3c2d1e0f")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				log.Log(rctx, slog.LevelInfo, "http", "method", "GET", "path", "/api/v1/auth/me", "status", 200, "ms", 0.412)
			}
			b.StopTimer()
			cancel()
			<-done
			if tee != nil && tee.Stats().Dropped > 0 {
				b.ReportMetric(float64(tee.Stats().Dropped)/float64(b.N), "dropped/op")
			}
		})
	}
}
