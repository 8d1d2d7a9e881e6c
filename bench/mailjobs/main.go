// Command mailjobs measures job throughput: N notifications.sendEmail jobs
// run by the real queue and mail service against a loopback SMTP server.
//
//	go run ./bench/mailjobs -jobs 10000 -concurrency 16 [-db postgres://…]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"coreportal/internal/auth"
	"coreportal/internal/config"
	"coreportal/internal/jobs"
	"coreportal/internal/mail"
	"coreportal/internal/mail/mailtest"
	"coreportal/internal/services"
	"coreportal/internal/store"
)

func main() {
	n := flag.Int("jobs", 10000, "mail jobs")
	conc := flag.Int("concurrency", 16, "jobs run at once")
	dbURL := flag.String("db", "", "PostgreSQL URL (a scratch database: the jobs table is emptied); empty = SQLite in a temp folder")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "mailjobs")
	defer os.RemoveAll(dir)
	db, err := store.Open(ctx, *dbURL, filepath.Join(dir, "core.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx, slog.Default()); err != nil {
		log.Fatal(err)
	}
	if _, err := db.W(ctx).ExecContext(ctx, "DELETE FROM jobs"); err != nil {
		log.Fatal(err)
	}
	smtp, err := mailtest.Start(mailtest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer smtp.Close()

	q := jobs.New(db)
	q.Concurrency, q.Poll = *conc, 50*time.Millisecond
	svc := services.New(db, q)
	m := mail.New(svc, q, config.Config{})
	if _, err := m.SaveSettings(ctx, mail.SMTPSettingsInput{Host: smtp.Host, Port: smtp.Port, FromEmail: "bench@example.com"}); err != nil {
		log.Fatal(err)
	}
	admin := auth.WithPrincipal(ctx, &auth.Principal{UserID: "00000000-0000-0000-0000-000000000001", IsAdmin: true})

	t0 := time.Now()
	for i := 0; i < *n; i += 500 {
		err := db.InTx(admin, func(ctx context.Context, _ *store.Tx) error {
			for k := i; k < min(i+500, *n); k++ {
				if _, err := m.Send(ctx, mail.Message{To: []string{"someone@example.com"}, Subject: fmt.Sprintf("bench %d", k), Text: "body"}, true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	enq := time.Since(t0)
	fmt.Printf("%s: enqueued %d mail jobs through mail.Send in %s (%.0f/s)\n", db.Dialect, *n, enq.Round(time.Millisecond), float64(*n)/enq.Seconds())

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	t1 := time.Now()
	go func() { q.Run(runCtx); close(done) }()
	for smtp.Count() < int64(*n) {
		time.Sleep(5 * time.Millisecond)
		if time.Since(t1) > 10*time.Minute {
			log.Fatalf("only %d mails after 10 minutes", smtp.Count())
		}
	}
	// wait until every job is recorded as succeeded
	for {
		_, left, err := q.List(ctx, jobs.Filter{Status: jobs.StatusSucceeded}, 0, 1)
		if err != nil {
			log.Fatal(err)
		}
		if left == *n {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(t1)
	stop()
	<-done
	_, failed, _ := q.List(ctx, jobs.Filter{Status: jobs.StatusFailed}, 0, 1)
	fmt.Printf("%s: ran %d mail jobs (%d SMTP deliveries, %d failed) with concurrency %d in %s: %.0f jobs/s\n",
		db.Dialect, *n, smtp.Count(), failed, *conc, took.Round(time.Millisecond), float64(*n)/took.Seconds())
}
