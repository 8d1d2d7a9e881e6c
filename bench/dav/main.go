// Command dav is the WebDAV harness: PROPFIND Depth: 1 of a folder of N
// files (default 10,000) as the administrator and as a user with view, and a
// PUT of a large file (default 1 GB, generated on the fly) with the server's
// resident memory before and after (VmRSS, peak VmHWM).
//
//	go run ./bench/dav -db sqlite
//	go run ./bench/dav -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
package main

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"coreportal/bench/benchkit"
)

const adminPassword = "bench-password-1"

// server is stopped by fatalf too (log.Fatalf skips deferred calls).
var server *exec.Cmd

func fatalf(format string, args ...any) {
	if server != nil && server.Process != nil {
		_ = server.Process.Kill()
	}
	log.Fatalf(format, args...)
}

func main() {
	dbFlag := flag.String("db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created)")
	files := flag.Int("files", 10_000, "files in the listed folder")
	requests := flag.Int("requests", 30, "PROPFIND requests per caller")
	sizeMB := flag.Int("size", 1024, "size of the PUT file in MB (0: no PUT)")
	prebuilt := flag.String("bin", "", "use this coreportal binary instead of building ./cmd/coreportal")
	flag.Parse()

	dir, err := os.MkdirTemp("", "benchdav")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "coreportal")
	if *prebuilt != "" {
		bin = *prebuilt
	} else {
		build := exec.Command("go", "build", "-o", bin, "./cmd/coreportal")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		benchkit.Must(build.Run())
	}
	dbURL, dbName := "", "sqlite"
	if *dbFlag != "sqlite" {
		var drop func()
		dbURL, drop = benchkit.FreshDB(*dbFlag, "bench_dav")
		defer drop()
		dbName = "postgres"
	}
	dataDir := filepath.Join(dir, "data")
	addr := benchkit.FreePort()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+dataDir, "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD="+adminPassword, "CORE_ACCESS_LOG=false", "CORE_LOG_LEVEL=warn",
		"CORE_MAX_UPLOAD_MB="+strconv.Itoa(*sizeMB+16))
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	server = cmd
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	base := "http://" + addr
	benchkit.WaitHealth(base)
	token := login(base, "admin", adminPassword)
	node := api(base, token, "POST", "/nodes", map[string]any{"slug": "bench", "title": "Bench"})["id"].(string)
	lib := api(base, token, "POST", "/libraries", map[string]any{"nodeId": node, "title": "Bench", "slug": "bench"})["id"].(string)
	folder := api(base, token, "POST", "/libraries/"+lib+"/folders", map[string]any{"name": "big"})
	start := time.Now()
	seed(dbName, dbURL, filepath.Join(dataDir, "core.db"), lib, int64(folder["id"].(float64)), folder["guid"].(string), *files)
	fmt.Printf("database %s, server pid %d; seeded %d files in %.1f s\n", dbName, cmd.Process.Pid, *files, time.Since(start).Seconds())
	api(base, token, "POST", "/admin/users", map[string]any{"login": "reader", "password": "reader-password-1", "displayName": "Reader", "email": "r@example.com"})
	uid := loginUser(base, "reader", "reader-password-1")
	api(base, token, "POST", "/permissions", map[string]any{"resourceType": "node", "resourceId": node, "principalType": "user", "principalId": uid, "permissionLevel": "view"})
	for _, who := range [][2]string{{"admin", adminPassword}, {"reader", "reader-password-1"}} {
		var lat []time.Duration
		var ticks int
		for i := 0; i < *requests+3; i++ {
			t0, c0 := time.Now(), benchkit.CPUTicks(cmd.Process.Pid)
			n := propfind(base+"/dav/bench/bench/big/", who[0], who[1])
			if i >= 3 {
				lat = append(lat, time.Since(t0))
				ticks += benchkit.CPUTicks(cmd.Process.Pid) - c0
			}
			if n != *files+1 {
				fatalf("PROPFIND as %s: %d responses, want %d", who[0], n, *files+1)
			}
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
		load, _ := os.ReadFile("/proc/loadavg")
		fmt.Printf("PROPFIND Depth: 1 of %d files as %s: p50 %.0f ms, p95 %.0f ms, max %.0f ms, server CPU %.0f ms per request (%d requests; load %s)\n",
			*files, who[0], q(0.5), q(0.95), q(1), float64(ticks*10)/float64(len(lat)), len(lat), strings.Fields(string(load))[0])
	}
	if *sizeMB > 0 {
		put(base, cmd.Process.Pid, int64(*sizeMB)<<20)
	}
}

func put(base string, pid int, size int64) {
	time.Sleep(2 * time.Second)
	rss0, hwm0 := benchkit.ProcKB(pid, "VmRSS"), benchkit.ProcKB(pid, "VmHWM")
	block := make([]byte, 1<<20)
	_, _ = rand.Read(block)
	pr, pw := io.Pipe()
	go func() {
		for sent := int64(0); sent < size; sent += int64(len(block)) {
			if _, err := pw.Write(block); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("PUT", base+"/dav/bench/bench/big.bin", pr)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	req.SetBasicAuth("admin", adminPassword)
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(t0)
	if resp.StatusCode != 201 {
		fatalf("PUT: %d %s", resp.StatusCode, msg)
	}
	hwm := benchkit.ProcKB(pid, "VmHWM")
	fmt.Printf("PUT %d MB: %.1f s (%.0f MB/s); RSS before %.1f MB, peak before %.1f MB, peak after %.1f MB, growth over the RSS before %.1f MB\n",
		size>>20, took.Seconds(), float64(size>>20)/took.Seconds(), float64(rss0)/1024, float64(hwm0)/1024, float64(hwm)/1024, float64(hwm-rss0)/1024)
}

func propfind(url, user, pwd string) int {
	req, _ := http.NewRequest("PROPFIND", url, strings.NewReader(`<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getlastmodified/><d:getetag/><d:getcontenttype/></d:prop></d:propfind>`))
	req.Header.Set("Depth", "1")
	req.SetBasicAuth(user, pwd)
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 207 {
		fatalf("PROPFIND: %d %s", resp.StatusCode, b)
	}
	return bytes.Count(b, []byte("<D:response>"))
}

func api(base, token, method, path string, body any) map[string]any {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, base+"/api/v1"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	var env struct{ Data map[string]any }
	_ = json.Unmarshal(b, &env)
	return env.Data
}

func login(base, user, pwd string) string {
	return api(base, "", "POST", "/auth/login", map[string]any{"login": user, "password": pwd})["token"].(string)
}

func loginUser(base, user, pwd string) string {
	return api(base, "", "POST", "/auth/login", map[string]any{"login": user, "password": pwd})["user"].(map[string]any)["id"].(string)
}

// seed inserts files into the folder and registers them in the ACL tables,
// in batches inside one transaction (what the upload path writes, without bytes).
func seed(dbName, dbURL, sqlitePath, lib string, folderNo int64, folderGUID string, n int) {
	driver, dsn := "pgx", dbURL
	if dbName == "sqlite" {
		driver, dsn = "sqlite", "file:"+sqlitePath+"?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open(driver, dsn)
	benchkit.Must(err)
	defer db.Close()
	rebind := func(q string) string {
		if driver != "pgx" {
			return q
		}
		var b strings.Builder
		i := 0
		for _, r := range q {
			if r == '?' {
				i++
				b.WriteString("$" + strconv.Itoa(i))
				continue
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	tx, err := db.Begin()
	benchkit.Must(err)
	var first int64
	benchkit.Must(tx.QueryRow(rebind("UPDATE libraries SET next_number = next_number + ? WHERE id = ? RETURNING next_number"), n, lib).Scan(&first))
	first -= int64(n)
	now := time.Now().UTC()
	const batch = 500
	for i := 0; i < n; i += batch {
		m := min(batch, n-i)
		var fq, aq strings.Builder
		fq.WriteString(`INSERT INTO library_files (guid, library_id, number, parent_no, name, name_key, is_folder, file_size, mime_type,
			blob_key, version_id, field_values, created_at, updated_at) VALUES `)
		aq.WriteString("INSERT INTO acl_objects (id, type, parent_id, inherits) VALUES ")
		var fa, aa []any
		for j := 0; j < m; j++ {
			if j > 0 {
				fq.WriteString(", ")
				aq.WriteString(", ")
			}
			fq.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			aq.WriteString("(?, ?, ?, ?)")
			g := uuid.NewString()
			name := fmt.Sprintf("Report %06d %s.pdf", mrand.IntN(1_000_000), g[:8])
			at := now.Add(-time.Duration(mrand.IntN(1_000_000)) * time.Second)
			fa = append(fa, g, lib, first+int64(i+j), folderNo, name, strings.ToLower(name), false, mrand.IntN(10<<20),
				"application/pdf", "libraries/"+lib+"/"+g, uuid.NewString(), "{}", at, at)
			aa = append(aa, g, "file", folderGUID, true)
		}
		_, err := tx.Exec(rebind(fq.String()), fa...)
		benchkit.Must(err)
		_, err = tx.Exec(rebind(aq.String()), aa...)
		benchkit.Must(err)
	}
	benchkit.Must(tx.Commit())
	if driver == "pgx" {
		_, err = db.Exec("VACUUM ANALYZE library_files, acl_objects") // as autovacuum would, before measuring
	} else {
		_, err = db.Exec("ANALYZE")
	}
	benchkit.Must(err)
}
