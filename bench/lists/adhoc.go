package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"coreportal/internal/lists"
	"coreportal/internal/store"
	"coreportal/internal/web"
)

// adhoc is the request of issue #16 on columns no view sorts or filters on:
// title contains a two-letter string AND amount between 1000 and 5000,
// sorted by the datetime field `at` descending (the seeded views sort by due
// and filter on amount and name), 50 per page, a random page from 1 to 20,
// with the exact total. It runs with one client and with -clients clients,
// warm (one service: totals kept 5 s per filter) and cold (a fresh service
// per request: every total counted), and prints p50/p95, requests/s, the
// item table's size and the size of one answer (JSON envelope, plain and as
// the server's compression middleware sends it); -levels adds the size and
// CPU cost of that answer at every gzip and zstd level.
func adhoc(ctx context.Context, e *env, seconds, clients int, dump string, levels bool) error {
	listID, err := findList(ctx, e)
	if err != nil {
		return err
	}
	pairs := []string{"al", "ta", "ep", "er", "ro", "ни", "ва", "pr"}
	filter := func(rng *rand.Rand) string {
		return fmt.Sprintf(`{"logic":"and","conditions":[{"column":"title","operator":"contains","value":%q},`+
			`{"column":"amount","operator":"gte","value":1000},{"column":"amount","operator":"lte","value":5000}]}`, pairs[rng.IntN(len(pairs))])
	}
	heap, total, err := tableSize(ctx, e, listID)
	if err != nil {
		return err
	}
	fmt.Printf("item table: heap %.1f MiB, heap+indexes %.1f MiB\n", mib(heap), mib(total))
	plain, err := plainSize(ctx, e, listID)
	if err != nil {
		return err
	}
	fmt.Printf("plain typed-column table of the user's data (id + one column per user field, no system field, no indexes): %.1f MiB; item table heap / plain = %.2fx\n",
		mib(plain), float64(heap)/float64(max(plain, 1)))
	// one answer's size
	f1 := filter(rand.New(rand.NewPCG(1, 1)))
	items, meta, err := e.svc.ListItems(ctx, e.reader, listID, lists.ListParams{Page: 1, Limit: 50, Filter: f1, Sort: "at:desc"})
	if err != nil {
		return err
	}
	fmt.Printf("measured answer: GET /api/v1/lists/%s/items?page=1&limit=50&sort=at:desc&filter=%s (as reader)\n", listID, url.QueryEscape(f1))
	first := lists.SentMeta(meta, "")
	for _, a := range []struct {
		name string
		meta lists.SentListMeta
	}{{"first request", first}, {"with schemaTag", lists.SentMeta(meta, first.SchemaTag)}} {
		// encoded as the API encodes it (Huma: encoding/json, HTML left
		// unescaped, a trailing newline)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(web.PagedEnvelope[[]lists.ItemOut, lists.SentListMeta]{Success: true, Data: items, Meta: a.meta}); err != nil {
			return fmt.Errorf("encode the answer: %w", err)
		}
		body := buf.Bytes()
		if dump != "" {
			name := dump + "." + strings.ReplaceAll(a.name, " ", "-") + ".json"
			if err := os.WriteFile(name, body, 0o644); err != nil {
				return fmt.Errorf("dump: %w", err)
			}
		}
		gz, _ := sentSize(body, "gzip")
		zs, _ := sentSize(body, "gzip, zstd")
		fmt.Printf("answer of 50 items, %s: %d bytes plain, %d gzip, %d zstd (as the server sends it; total %d)\n",
			a.name, len(body), gz, zs, meta.Total)
		if levels && a.meta.SchemaUnchanged {
			levelTable(body)
		}
	}
	for _, cold := range []bool{false, true} {
		for _, n := range []int{1, clients} {
			var mu sync.Mutex
			var ds []time.Duration
			var failed atomic.Int64
			deadline := time.Now().Add(time.Duration(seconds) * time.Second)
			var wg sync.WaitGroup
			start, cpu0 := time.Now(), cpuTime()
			for c := 0; c < n; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(c), uint64(time.Now().UnixNano())))
					for time.Now().Before(deadline) {
						svc := e.svc
						if cold {
							svc = lists.NewService(e.db, e.acl, e.nodes)
						}
						t0 := time.Now()
						_, _, err := svc.ListItems(ctx, e.reader, listID, lists.ListParams{Page: 1 + rng.IntN(20), Limit: 50, Filter: filter(rng), Sort: "at:desc"})
						d := time.Since(t0)
						if err != nil {
							failed.Add(1)
							continue
						}
						mu.Lock()
						ds = append(ds, d)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			el, cpu := time.Since(start), cpuTime()-cpu0
			mode := "warm (totals cached 5 s)"
			if cold {
				mode = "cold (every total counted)"
			}
			if len(ds) == 0 {
				fmt.Printf("%-28s clients=%-3d no answers, %d failed\n", mode, n, failed.Load())
				continue
			}
			fmt.Printf("%-28s clients=%-3d requests=%d p50=%s p95=%s req/s=%.1f failed=%d bench-process-cpu/request=%s\n", mode, n, len(ds),
				percentile(ds, .5).Round(100*time.Microsecond), percentile(ds, .95).Round(100*time.Microsecond), float64(len(ds))/el.Seconds(), failed.Load(), (cpu / time.Duration(len(ds))).Round(100*time.Microsecond))
		}
	}
	return nil
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// tableSize is the on-disk size of the list's item table (heap) and with its
// indexes, in bytes (SQLite: dbstat; PostgreSQL: pg_table_size and
// pg_total_relation_size).
func tableSize(ctx context.Context, e *env, listID string) (heap, total int64, err error) {
	var table string
	if err := e.db.Q(ctx).QueryRowContext(ctx, "SELECT table_name FROM lists WHERE id = ?", listID).Scan(&table); err != nil {
		return 0, 0, err
	}
	if e.db.Dialect == store.Postgres {
		err = e.db.Q(ctx).QueryRowContext(ctx, "SELECT pg_table_size(?::regclass), pg_total_relation_size(?::regclass)", table, table).Scan(&heap, &total)
		return heap, total, err
	}
	err = e.db.Q(ctx).QueryRowContext(ctx, `SELECT coalesce(sum(CASE WHEN name = ? THEN pgsize END), 0), coalesce(sum(pgsize), 0)
		FROM dbstat WHERE name = ? OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?)`, table, table, table).Scan(&heap, &total)
	if err != nil {
		return 0, 0, fmt.Errorf("dbstat: %w", err)
	}
	return heap, total, nil
}

// plainSize copies the item number and the value column of every user field
// (title and the custom fields; not the created_by system field, no shadow
// or system columns) into a scratch table, measures its heap like tableSize
// and drops it: the honest reference for the lean-row target (item table at
// most 1.5x this).
func plainSize(ctx context.Context, e *env, listID string) (int64, error) {
	var table string
	if err := e.db.Q(ctx).QueryRowContext(ctx, "SELECT table_name FROM lists WHERE id = ?", listID).Scan(&table); err != nil {
		return 0, err
	}
	rows, err := e.db.Q(ctx).QueryContext(ctx, "SELECT col FROM list_fields WHERE list_id = ? AND col > 0 AND internal_name <> 'created_by' ORDER BY col", listID)
	if err != nil {
		return 0, err
	}
	cols := []string{"id"}
	for rows.Next() {
		var c int
		if err := rows.Scan(&c); err != nil {
			rows.Close()
			return 0, err
		}
		cols = append(cols, fmt.Sprintf("f_%d", c))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	scratch := "bench_plain_" + table[3:]
	w := e.db.W(ctx)
	if _, err := w.ExecContext(ctx, "DROP TABLE IF EXISTS "+scratch); err != nil {
		return 0, err
	}
	if _, err := w.ExecContext(ctx, "CREATE TABLE "+scratch+" AS SELECT "+strings.Join(cols, ", ")+" FROM "+table); err != nil {
		return 0, err
	}
	defer func() { _, _ = w.ExecContext(ctx, "DROP TABLE IF EXISTS "+scratch) }()
	var heap int64
	if e.db.Dialect == store.Postgres {
		if _, err := w.ExecContext(ctx, "VACUUM ANALYZE "+scratch); err != nil {
			return 0, err
		}
		err = e.db.Q(ctx).QueryRowContext(ctx, "SELECT pg_table_size(?::regclass)", scratch).Scan(&heap)
	} else {
		err = e.db.Q(ctx).QueryRowContext(ctx, "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?", scratch).Scan(&heap)
	}
	return heap, err
}

// cpuTime is the CPU time (user + system) of this process: with SQLite every
// query runs in it, so CPU per request is a figure that a busy machine does
// not inflate (PostgreSQL's share is in the server's processes).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
