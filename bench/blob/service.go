package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"coreportal/bench/benchkit"
)

const adminPassword = "Bench-blob-streaming-2026!"

type client struct {
	base  string
	token string
}

func (c *client) do(method, path string, body any, out any) {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	benchkit.Must(err)
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		var env struct{ Data json.RawMessage }
		benchkit.Must(json.Unmarshal(raw, &env))
		benchkit.Must(json.Unmarshal(env.Data, out))
	}
}

// memKB reads VmRSS or VmHWM of a process.
func memKB(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	benchkit.Must(err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, key+":") {
			v, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return v << 10
		}
	}
	return 0
}

func benchService(prebuilt, s3URL string, size int64) {
	dir, err := os.MkdirTemp("", "blobbench")
	benchkit.Must(err)
	defer os.RemoveAll(dir)
	bin := buildBinary(prebuilt, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "CORE_ADDR="+addr, "CORE_DATA_DIR="+dir, "DATABASE_URL=", "SEED_ADMIN_PASSWORD="+adminPassword,
		"CORE_LOG_LEVEL=warn", "CORE_ACCESS_LOG=false", fmt.Sprintf("CORE_MAX_UPLOAD_MB=%d", size>>20+1),
		"CORE_BLOB_URL="+s3URL, "AWS_ACCESS_KEY_ID="+accessKey, "AWS_SECRET_ACCESS_KEY="+secretKey)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	benchkit.Must(cmd.Start())
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	c := &client{base: "http://" + addr + "/api/v1"}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log.Fatal("service did not start")
		}
	}
	var login struct{ Token string }
	c.do("POST", "/auth/login", map[string]any{"login": "admin", "password": adminPassword}, &login)
	c.token = login.Token
	var node, list, item struct {
		ID any `json:"id"`
	}
	c.do("POST", "/nodes", map[string]any{"slug": "bench", "title": "Bench"}, &node)
	c.do("POST", "/lists", map[string]any{"nodeId": node.ID, "slug": "files", "title": "Files"}, &list)
	c.do("POST", fmt.Sprintf("/lists/%v/items", list.ID), map[string]any{"fieldValues": map[string]any{"title": "big"}}, &item)
	want, _ := digest(newContent(size))
	pid := cmd.Process.Pid
	time.Sleep(time.Second)
	idle := memKB(pid, "VmRSS")
	idleHWM := memKB(pid, "VmHWM")

	// upload: the multipart body is produced while it is sent
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", "big.bin")
		if err == nil {
			_, err = io.Copy(fw, newContent(size))
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/lists/%v/items/%v/attachments", c.base, list.ID, item.ID), pr)
	benchkit.Must(err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.token)
	t0 := time.Now()
	resp, err := http.DefaultClient.Do(req)
	benchkit.Must(err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		log.Fatalf("upload: %d %s", resp.StatusCode, raw)
	}
	up := time.Since(t0)
	var att struct {
		Data struct {
			ID   string `json:"id"`
			Size int64  `json:"size"`
		}
	}
	benchkit.Must(json.Unmarshal(raw, &att))
	afterUp := memKB(pid, "VmHWM")

	req, err = http.NewRequest("GET", c.base+"/attachments/"+att.Data.ID+"/download", nil)
	benchkit.Must(err)
	req.Header.Set("Authorization", "Bearer "+c.token)
	t0 = time.Now()
	resp, err = http.DefaultClient.Do(req)
	benchkit.Must(err)
	got, n := digest(resp.Body)
	resp.Body.Close()
	down := time.Since(t0)
	if resp.StatusCode != 200 || got != want || n != size || att.Data.Size != size {
		log.Fatalf("download: %d, %d bytes (stored %d), sha %s vs %s", resp.StatusCode, n, att.Data.Size, got, want)
	}
	afterDown := memKB(pid, "VmHWM")
	store := "local folder"
	if s3URL != "" {
		store = "S3 (gofakes3 child process on loopback)"
	}
	fmt.Printf("service, blob store %s, SQLite: attachment of %s\n", store, human(size))
	fmt.Printf("  upload   %6.1f s  %6.1f MB/s\n", up.Seconds(), float64(size)/1e6/up.Seconds())
	fmt.Printf("  download %6.1f s  %6.1f MB/s (sha-256 checked)\n", down.Seconds(), float64(size)/1e6/down.Seconds())
	fmt.Printf("  service RSS idle %s (peak so far %s); peak after upload %s; peak after download %s; growth of the peak %s\n",
		human(idle), human(idleHWM), human(afterUp), human(afterDown), human(afterDown-idleHWM))
}
