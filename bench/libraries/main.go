// Command libraries is the harness of the document libraries issue (#10):
//
//	transfer: upload then download one large file (default 1 GB) through the
//	real binary and report the server's resident memory (VmRSS before, peak
//	VmHWM after each phase) and throughput; the body is generated on the fly,
//	so the harness itself holds no more than a 1 MB block either.
//	listing: seed a folder of N files (default 100,000) directly in SQL, then
//	request pages of 50 sorted by name at random offsets as the administrator
//	and as an ordinary user with view on the library; report p50/p95/p99.
//
//	go run ./bench/libraries -db sqlite
//	go run ./bench/libraries -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
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

func main() {
	dbFlag := flag.String("db", "sqlite", "sqlite, or a PostgreSQL admin URL (a fresh database is created)")
	mode := flag.String("mode", "all", "transfer, listing or all")
	sizeMB := flag.Int("size", 1024, "size of the transferred file in MB")
	files := flag.Int("files", 100_000, "files in the listed folder")
	requests := flag.Int("requests", 300, "listing requests per caller")
	prebuilt := flag.String("bin", "", "use this coreportal binary instead of building ./cmd/coreportal")
	useS3 := flag.Bool("s3", false, "store blobs on S3: the in-memory S3 server of bench/blob (-serve-s3) in a child process")
	keep := flag.Bool("keep", false, "keep the PostgreSQL database (its URL is printed) for inspection")
	flag.Parse()

	dir, err := os.MkdirTemp("", "benchlib")
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
		dbURL, drop = benchkit.FreshDB(*dbFlag, "bench_libraries")
		if *keep {
			fmt.Println("database URL", dbURL)
		} else {
			defer drop()
		}
		dbName = "postgres"
	}
	blobURL, storeName := "", "local folder"
	if *useS3 {
		endpoint, stop := startS3(dir)
		defer stop()
		blobURL, storeName = "s3://bench?endpoint="+url.QueryEscape(endpoint)+"&region=us-east-1", "S3 (gofakes3 child process)"
	}
	dataDir := filepath.Join(dir, "data")
	addr := benchkit.FreePort()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+dataDir, "DATABASE_URL="+dbURL,
		"SEED_ADMIN_PASSWORD=bench-password-1", "CORE_ACCESS_LOG=false", "CORE_LOG_LEVEL=warn",
		"CORE_MAX_UPLOAD_MB="+strconv.Itoa(*sizeMB+16), "CORE_BLOB_URL="+blobURL, "AWS_ACCESS_KEY_ID=bench-access", "AWS_SECRET_ACCESS_KEY=bench-secret")
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	c := &client{base: "http://" + addr}
	c.waitHealthy()
	c.token = c.login("admin", "bench-password-1")
	node := c.json("POST", "/nodes", map[string]any{"slug": "bench", "title": "Bench"})["id"].(string)
	lib := c.json("POST", "/libraries", map[string]any{"nodeId": node, "title": "Bench", "slug": "bench"})["id"].(string)
	pid := cmd.Process.Pid
	fmt.Printf("database %s, blobs on %s, server pid %d\n", dbName, storeName, pid)
	if *mode == "transfer" || *mode == "all" {
		transfer(c, pid, lib, int64(*sizeMB)<<20)
	}
	if *mode == "listing" || *mode == "all" {
		listing(c, dbName, dbURL, filepath.Join(dataDir, "core.db"), lib, *files, *requests)
	}
}

func transfer(c *client, pid int, lib string, size int64) {
	block := make([]byte, 1<<20)
	_, _ = rand.Read(block)
	runtimeGC(c)
	rss0, hwm0 := benchkit.ProcKB(pid, "VmRSS"), benchkit.ProcKB(pid, "VmHWM")
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", "big.bin")
		if err == nil {
			for left := size; left > 0 && err == nil; left -= int64(len(block)) {
				_, err = part.Write(block[:min(int64(len(block)), left)])
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", c.base+"/api/v1/libraries/"+lib+"/files", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		log.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	up := time.Since(start)
	hwmUp := benchkit.ProcKB(pid, "VmHWM")
	var rec struct{ ID int64 }
	var env struct{ Data json.RawMessage }
	benchkit.Must(json.Unmarshal(body, &env))
	benchkit.Must(json.Unmarshal(env.Data, &rec))

	req, _ = http.NewRequest("GET", fmt.Sprintf("%s/api/v1/libraries/%s/files/%d/download", c.base, lib, rec.ID), nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	start = time.Now()
	resp, err = http.DefaultClient.Do(req)
	benchkit.Must(err)
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	benchkit.Must(err)
	down := time.Since(start)
	if n != size {
		log.Fatalf("downloaded %d of %d bytes", n, size)
	}
	hwmDown := benchkit.ProcKB(pid, "VmHWM")
	mb := float64(size) / (1 << 20)
	fmt.Printf("transfer %.0f MB: upload %.1f s (%.0f MB/s), download %.1f s (%.0f MB/s)\n", mb, up.Seconds(), mb/up.Seconds(), down.Seconds(), mb/down.Seconds())
	fmt.Printf("server memory: RSS before %.1f MB (peak so far %.1f MB); peak after upload %.1f MB, after download %.1f MB; growth of the peak %.1f MB\n",
		kb(rss0), kb(hwm0), kb(hwmUp), kb(hwmDown), kb(max(hwmUp, hwmDown)-rss0))
}

// runtimeGC lets the server settle after start-up before the baseline is read.
func runtimeGC(*client) { time.Sleep(2 * time.Second) }

func listing(c *client, dbName, dbURL, sqlitePath, lib string, files, requests int) {
	folder := c.json("POST", "/libraries/"+lib+"/folders", map[string]any{"name": "big"})
	folderNo := int64(folder["id"].(float64))
	folderGUID := folder["guid"].(string)
	seedStart := time.Now()
	seed(dbName, dbURL, sqlitePath, lib, folderNo, folderGUID, files)
	fmt.Printf("seeded %d files in %.1f s\n", files, time.Since(seedStart).Seconds())
	uc := &client{base: c.base}
	c.json("POST", "/admin/users", map[string]any{"login": "reader", "password": "reader-password-1", "displayName": "Reader", "email": "r@example.com"})
	me := c.json("POST", "/auth/login", map[string]any{"login": "reader", "password": "reader-password-1"})
	uc.token = me["token"].(string)
	uid := me["user"].(map[string]any)["id"].(string)
	c.json("POST", "/permissions", map[string]any{"resourceType": "library", "resourceId": lib, "principalType": "user", "principalId": uid, "permissionLevel": "view"})
	pages := files / 50
	for _, who := range []struct {
		name string
		c    *client
	}{{"administrator", c}, {"user with view", uc}} {
		for _, sortKey := range []string{"name", "-modified"} {
			var lat []time.Duration
			for i := 0; i < requests+10; i++ {
				page := 1 + mrand.IntN(pages)
				start := time.Now()
				d := who.c.do("GET", fmt.Sprintf("/libraries/%s/files?parentId=%d&limit=50&sort=%s&page=%d", lib, folderNo, sortKey, page), nil)
				if i >= 10 { // the first requests warm caches
					lat = append(lat, time.Since(start))
				}
				var env struct {
					Data []any
					Meta map[string]any
				}
				benchkit.Must(json.Unmarshal(d, &env))
				if len(env.Data) != 50 || env.Meta["total"] != float64(files) {
					log.Fatalf("page %d: %d files, meta %v", page, len(env.Data), env.Meta)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			fmt.Printf("listing %d files, page of 50 sorted by %s, %s: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms (%d requests)\n",
				files, sortKey, who.name, q(0.5), q(0.95), q(0.99), len(lat))
		}
	}
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

// startS3 runs bench/blob's in-memory S3 server (bucket "bench") and returns its endpoint.
func startS3(dir string) (string, func()) {
	bin := filepath.Join(dir, "s3server")
	build := exec.Command("go", "build", "-o", bin, "./bench/blob")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	benchkit.Must(build.Run())
	cmd := exec.Command(bin, "-serve-s3")
	stdin, err := cmd.StdinPipe()
	benchkit.Must(err)
	out, err := cmd.StdoutPipe()
	benchkit.Must(err)
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	benchkit.Must(err)
	return strings.TrimSpace(line), func() { stdin.Close(); _ = cmd.Wait() }
}

type client struct {
	base, token string
}

func (c *client) do(method, path string, body any) []byte {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, c.base+"/api/v1"+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

func (c *client) json(method, path string, body any) map[string]any {
	var env struct{ Data map[string]any }
	benchkit.Must(json.Unmarshal(c.do(method, path, body), &env))
	return env.Data
}

func (c *client) login(login, password string) string {
	return c.json("POST", "/auth/login", map[string]any{"login": login, "password": password})["token"].(string)
}

func (c *client) waitHealthy() {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(c.base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatal("server did not become healthy")
}

func kb(n int) float64 { return float64(n) / 1024 }
