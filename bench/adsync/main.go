// Command adsync measures the directory sync (issue #13): it seeds a real
// OpenLDAP slapd with N users (nested OUs, managers, photos) and M groups
// (with nested groups), starts the real binary, configures the directory
// through the API and runs ad-sync twice: a first run that creates
// everything and an unchanged second run. It reports each run's time and the
// server's peak resident memory (VmHWM).
//
//	go run ./bench/adsync -users 10000 -groups 500
//	go run ./bench/adsync -db 'postgres://postgres@127.0.0.1:5432/perf_adsync?sslmode=disable'
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"coreportal/internal/directory/slapdtest"

	"coreportal/bench/benchkit"
)

const adminPassword = "bench-admin-password-1"

func main() {
	db := flag.String("db", "", "empty = SQLite in a temp folder; else an (empty) PostgreSQL database URL")
	nUsers := flag.Int("users", 10000, "directory users")
	nGroups := flag.Int("groups", 500, "directory groups")
	photoEvery := flag.Int("photo-every", 4, "every n-th user has a jpegPhoto")
	flag.Parse()

	dir, err := os.MkdirTemp("", "adsync-bench")
	benchkit.Must(err)
	defer os.RemoveAll(dir)

	seedStart := time.Now()
	d, err := slapdtest.Start(filepath.Join(dir, "slapd"), slapdtest.Seed{Users: *nUsers, Groups: *nGroups, PhotoEvery: *photoEvery}.LDIF())
	benchkit.Must(err)
	defer d.Stop()
	log.Printf("slapd seeded with %d users, %d groups in %v", *nUsers, *nGroups, time.Since(seedStart).Round(time.Millisecond))

	bin := filepath.Join(dir, "coreportal")
	build := exec.Command("go", "build", "-o", bin, "./cmd/coreportal")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	benchkit.Must(build.Run())
	addr := benchkit.FreePort()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+filepath.Join(dir, "data"), "DATABASE_URL="+*db,
		"SEED_ADMIN_PASSWORD="+adminPassword, "CORE_LOG_LEVEL=warn", "CORE_ACCESS_LOG=false")
	cmd.Stderr = os.Stderr
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	base := "http://" + addr + "/api/v1"
	benchkit.WaitHealth("http://" + addr)

	token := call(base, "", "POST", "/auth/login", map[string]any{"login": "admin", "password": adminPassword})["token"].(string)
	call(base, token, "PUT", "/admin/settings/ldap", map[string]any{"url": d.URL, "baseDn": slapdtest.Suffix, "bindDn": slapdtest.Admin,
		"bindPassword": slapdtest.AdminPassword, "loginAttr": "uid"})
	call(base, token, "PUT", "/admin/settings/ldap-sync", map[string]any{"syncGroups": true,
		"attributeMap": map[string]any{"thumbnailPhoto": "jpegPhoto", "department": "departmentNumber"}})
	baseRSS := benchkit.ProcKB(cmd.Process.Pid, "VmRSS")

	for _, run := range []string{"first", "second (unchanged)"} {
		start := time.Now()
		job := call(base, token, "POST", "/services/ad-sync/run", map[string]any{"deactivateMissing": true})
		res := waitJob(base, token, job["jobId"].(string))
		elapsed := time.Since(start)
		b, _ := json.Marshal(res["result"])
		fmt.Printf("%s run: %v (job %v)\n  result %s\n  server RSS peak so far %.1f MB (idle before the runs %.1f MB)\n",
			run, elapsed.Round(time.Millisecond), res["status"], b, float64(benchkit.ProcKB(cmd.Process.Pid, "VmHWM"))/1024, float64(baseRSS)/1024)
	}
}

func waitJob(base, token, id string) map[string]any {
	for deadline := time.Now().Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		j := call(base, token, "GET", "/jobs/"+id, nil)
		if j["status"] == "succeeded" || j["status"] == "failed" {
			if j["status"] == "failed" {
				log.Fatalf("sync failed: %v", j["error"])
			}
			return j
		}
	}
	log.Fatal("sync did not finish")
	return nil
}

func call(base, token, method, path string, body any) map[string]any {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, base+path, rd)
	benchkit.Must(err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	var env struct {
		Success bool
		Data    map[string]any
		Error   any
	}
	benchkit.Must(json.NewDecoder(resp.Body).Decode(&env))
	if resp.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, env.Error)
	}
	return env.Data
}
