package cluster

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// UploadReport is an upload cut off by its instance's death.
type UploadReport struct {
	Instance  string
	Key       string
	UploadID  string
	Parts     int           // parts on the server when the instance was killed
	Initiated time.Time     // when the multipart upload began
	Gone      time.Duration // from the kill until the upload was no longer listed
	killed    time.Time
}

func (c *Cluster) s3Core(t testing.TB) minio.Core {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.core.Client == nil {
		c.core = minio.Core{Client: c.S3.Store(t).Client()}
	}
	return c.core
}

// KillMidUpload streams a large file to a and kills a with SIGKILL once a
// 5 MiB part of it is on the S3 server.
func (c *Cluster) KillMidUpload(t testing.TB, f *Fixture, a *API) UploadReport {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, err := mw.CreateFormFile("file", c.Unique("big")+".bin")
		chunk := make([]byte, 256<<10)
		for n := 0; err == nil && n < 320; n++ { // 80 MiB at most, about 8 MiB/s
			_, err = fw.Write(chunk)
			time.Sleep(30 * time.Millisecond)
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", a.URL+"/api/v1/libraries/"+f.LibID+"/files", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.Token)
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	rep := UploadReport{Instance: a.Name}
	deadline := time.Now().Add(30 * time.Second)
	for rep.UploadID == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no 5 MiB part of the large upload to %s on the S3 server within 30 s", a.Name)
		}
		rep = c.findLargePart(t, rep)
		time.Sleep(20 * time.Millisecond)
	}
	c.Kill(a)
	rep.killed = time.Now()
	pr.CloseWithError(fmt.Errorf("the instance was killed"))
	return rep
}

// findLargePart looks for an unfinished upload holding a part of 5 MiB.
func (c *Cluster) findLargePart(t testing.TB, rep UploadReport) UploadReport {
	core := c.s3Core(t)
	ctx := context.Background()
	for u := range core.ListIncompleteUploads(ctx, c.S3.Bucket, "", true) {
		if u.Err != nil {
			continue
		}
		parts, err := core.ListObjectParts(ctx, c.S3.Bucket, u.Key, u.UploadID, 0, 1000)
		if err != nil {
			continue
		}
		for _, p := range parts.ObjectParts {
			if p.Size >= 5<<20 {
				rep.Key, rep.UploadID, rep.Parts, rep.Initiated = u.Key, u.UploadID, len(parts.ObjectParts), u.Initiated
				return rep
			}
		}
	}
	return rep
}

// WaitUploadGone waits until the cut-off upload is no longer listed among
// the bucket's unfinished multipart uploads.
func (c *Cluster) WaitUploadGone(t testing.TB, rep *UploadReport, within time.Duration) {
	t.Helper()
	core := c.s3Core(t)
	for end := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		listed := false
		for u := range core.ListIncompleteUploads(context.Background(), c.S3.Bucket, "", true) {
			listed = listed || u.UploadID == rep.UploadID || u.Err != nil
		}
		if !listed {
			rep.Gone = time.Since(rep.killed)
			return
		}
		if time.Now().After(end) {
			t.Errorf("the upload cut off on %s (%s, %d parts) is still unfinished on the S3 server", rep.Instance, rep.Key, rep.Parts)
			return
		}
	}
}
