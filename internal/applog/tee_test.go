package applog

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

func TestTeeNeverBlocksAndCountsDrops(t *testing.T) {
	tee := NewTee("api", "test-1")
	log := slog.New(Handler{Handler: slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}), Tee: tee})
	done := make(chan struct{})
	go func() {
		for i := 0; i < QueueSize+100; i++ {
			log.Info("x", "i", i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("logging blocked on a full queue")
	}
	st := tee.Stats()
	if st.Accepted != QueueSize || st.Dropped != 100 || st.Queued != QueueSize {
		t.Fatalf("stats %+v", st)
	}
}

func TestTeeRecordShape(t *testing.T) {
	tee := NewTee("api", "test-1")
	tee.Use(Settings{MinLevel: "debug", RedactEnabled: true})
	log := slog.New(Handler{Handler: slog.NewTextHandler(io.Discard, nil), Tee: tee}).With("component", "x").WithGroup("g")
	ctx := WithJob(WithCorrelation(context.Background(), "corr-1"), "job-1")
	log.DebugContext(ctx, "mail to bob@example.com", "password", "s3cret", "n", 3)
	var got []Entry
	var mu sync.Mutex
	ctx2, cancel := context.WithCancel(context.Background())
	cancel() // Run flushes what is queued and returns
	tee.Run(ctx2, func(_ context.Context, b []Entry) error { mu.Lock(); got = append(got, b...); mu.Unlock(); return nil })
	if len(got) != 1 {
		t.Fatalf("%d records", len(got))
	}
	e := got[0]
	if e.Level != "debug" || e.Process != "worker" || e.Category != "job" || e.JobID != "job-1" || e.CorrelationID != "corr-1" {
		t.Fatalf("record %+v", e)
	}
	if e.Message != "mail to b***@example.com" || e.Attrs["g.password"] != Masked || e.Attrs["g.n"] != int64(3) || e.Attrs["component"] != "x" {
		t.Fatalf("attrs %+v / %q", e.Attrs, e.Message)
	}
	// below minLevel and outside includeCategories nothing is queued
	tee.Use(Settings{MinLevel: "warn", IncludeCategories: []string{"http"}})
	log.Info("quiet")
	log.Warn("not http")
	if tee.Stats().Queued != 0 {
		t.Fatalf("queued %d", tee.Stats().Queued)
	}
}
