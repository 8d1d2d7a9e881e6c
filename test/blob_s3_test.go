package test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"coreportal/internal/blob/blobtest"
	"coreportal/test/kit"
)

// TestBlobS3Attachments runs list item attachments on an S3-compatible
// server on loopback (gofakes3 in this process), on both databases.
func TestBlobS3Attachments(t *testing.T) {
	t.Parallel()
	for _, b := range kit.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv := blobtest.StartS3(t) // one bucket per backend: the checks count its keys
			testBlobS3Attachments(t, srv, kit.Start(t, b, append(srv.Env(), "CORE_MAX_UPLOAD_MB=1")...))
		})
	}
}

func testBlobS3Attachments(t *testing.T, srv *blobtest.S3Server, s *kit.Server) {
	f := newListFixture(t, s, "s3")
	a := f.admin
	f.create(t, a, map[string]any{"title": "with files"})
	before := len(srv.Keys(t))

	// 700 KiB: more than one read buffer, streamed through to the bucket
	content := bytes.Repeat([]byte("s3 attachment bytes\n"), 700*1024/20)
	r := a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "report.bin", content, nil).Expect(t, 201).Map(t)
	id := r["id"].(string)
	if r["size"] != float64(len(content)) {
		t.Fatalf("uploaded %v", r)
	}
	keys := srv.Keys(t)
	if len(keys) != before+1 || !strings.Contains(strings.Join(keys, ","), "attachments/"+id[:2]+"/"+id) {
		t.Fatalf("bucket keys %v", keys)
	}
	d := a.Do(t, "GET", "/attachments/"+id+"/download", nil)
	if d.Status != 200 || !bytes.Equal(d.Raw, content) {
		t.Fatalf("downloaded %d: %d bytes, want %d", d.Status, len(d.Raw), len(content))
	}
	// nothing went to the local folder
	if ents, _ := os.ReadDir(filepath.Join(s.DataDir, "blobs", "attachments")); len(ents) != 0 {
		t.Fatalf("local blobs written: %v", ents)
	}

	// over CORE_MAX_UPLOAD_MB: 413 and nothing stored
	big := bytes.Repeat([]byte("x"), 1<<20+1)
	a.Upload(t, "POST", f.path("/items/1/attachments"), "file", "big.bin", big, nil).Expect(t, 413, "PAYLOAD_TOO_LARGE")
	if got := srv.Keys(t); len(got) != before+1 {
		t.Fatalf("rejected upload left objects: %v", got)
	}

	// ready names the blob store
	ready := a.Do(t, "GET", s.URL+"/ready", nil).Expect(t, 200).Map(t)
	if ready["blobs"] != "ok" || ready["database"] != "ok" || ready["bus"] != "ok" {
		t.Fatalf("ready %v", ready)
	}

	// library files and their versions go to the bucket too; ranges are
	// read with ranged GETs
	lib := newLibFixture(t, s, "s3lib")
	v1 := bytes.Repeat([]byte("0123456789"), 30_000)
	file := lib.put(t, a, "", "data.bin", v1, 201)
	v2 := append([]byte("second version "), v1...)
	lib.put(t, a, "", "data.bin", v2, 200) // a new version
	if got := len(srv.Keys(t)); got != before+3 {
		t.Fatalf("bucket after two versions: %d keys, want %d", got, before+3)
	}
	resp, body := lib.get(t, a, num(file), map[string]string{"Range": "bytes=7-16"})
	if resp.StatusCode != 206 || string(body) != string(v2[7:17]) {
		t.Fatalf("range: %d %q", resp.StatusCode, body)
	}
	resp, body = lib.get(t, a, num(file), nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, v2) {
		t.Fatalf("file download: %d, %d bytes", resp.StatusCode, len(body))
	}

	// delete removes the object
	a.Do(t, "DELETE", f.path("/items/1/attachments/"+id), nil).Expect(t, 200)
	a.Do(t, "GET", "/attachments/"+id+"/download", nil).Expect(t, 404, "NOT_FOUND")
	deadline := time.Now().Add(5 * time.Second)
	for len(srv.Keys(t)) != before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := srv.Keys(t); len(got) != before+2 {
		t.Fatalf("deleted attachment left objects: %v", got)
	}
}

// TestBlobS3Outage: a missing bucket stops the start with a clear message;
// an S3 outage makes /ready answer 503 naming the blob store.
func TestBlobS3Outage(t *testing.T) {
	t.Parallel()
	srv := blobtest.StartS3(t)
	t.Run("missing bucket", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, kit.Binary(t), "serve")
		cmd.Env = append(os.Environ(), "CORE_ADDR="+kit.FreePort(t), "CORE_DATA_DIR="+t.TempDir(), "DATABASE_URL=",
			"CORE_BLOB_URL="+srv.URL("no-such-bucket"), "AWS_ACCESS_KEY_ID="+blobtest.AccessKey, "AWS_SECRET_ACCESS_KEY="+blobtest.SecretKey)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), `S3 bucket \"no-such-bucket\" does not exist`) && !strings.Contains(string(out), `S3 bucket "no-such-bucket" does not exist`) {
			t.Fatalf("start with a missing bucket: %v\n%s", err, out)
		}
	})
	t.Run("outage", func(t *testing.T) {
		s := kit.Start(t, kit.Backends(t)[0], srv.Env()...)
		a := s.Admin(t)
		a.Do(t, "GET", s.URL+"/ready", nil).Expect(t, 200)
		srv.Close()
		r := s.Anon().Do(t, "GET", s.URL+"/ready", nil).Expect(t, 503, "UNAVAILABLE")
		if f, _ := r.Error.Details["failing"].([]any); len(f) != 1 || f[0] != "blobs" {
			t.Fatalf("ready during outage: %s", r.Raw)
		}
		if strings.Contains(string(r.Raw), "127.0.0.1") {
			t.Fatalf("ready leaks the endpoint: %s", r.Raw)
		}
		s.Anon().Do(t, "GET", "/health", nil).Expect(t, 200)
	})
}
