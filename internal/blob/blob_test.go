package blob_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"coreportal/internal/blob"
	"coreportal/internal/blob/blobtest"
)

func TestLocal(t *testing.T) {
	s, err := blob.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Conformance(t, s)
	blobtest.Large(t, s, 1<<20)
}

func TestS3(t *testing.T) {
	srv := blobtest.StartS3(t)
	s := srv.Store(t)
	blobtest.Conformance(t, s)
	// 12 MiB over 5 MiB parts: three parts of a multipart upload
	u, _ := url.Parse(srv.URL(srv.Bucket) + "&partSizeMB=5")
	o, err := blob.ParseS3URL(u)
	if err != nil {
		t.Fatal(err)
	}
	o.Creds = srv.Store(t).Creds()
	small, err := blob.NewS3(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Large(t, small, 12<<20)
	if keys := srv.Keys(t); len(keys) != 0 {
		t.Fatalf("objects left behind: %v", keys)
	}
}

func TestOpenS3(t *testing.T) {
	srv := blobtest.StartS3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", blobtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", blobtest.SecretKey)
	ctx := context.Background()
	s, err := blob.Open(ctx, srv.URL(srv.Bucket), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "a/b", strings.NewReader("via env")); err != nil {
		t.Fatal(err)
	}
	if keys := srv.Keys(t); len(keys) != 1 || keys[0] != "a/b" {
		t.Fatalf("keys %v", keys)
	}
	// a missing bucket is a clear error at start
	if _, err := blob.Open(ctx, srv.URL("no-such-bucket"), t.TempDir()); err == nil || !strings.Contains(err.Error(), `"no-such-bucket" does not exist`) {
		t.Fatalf("missing bucket: %v", err)
	}
}

func TestParseS3URL(t *testing.T) {
	for _, c := range []struct {
		in       string
		ok       bool
		endpoint string
		secure   bool
		path     bool
		region   string
	}{
		{"s3://b", true, "", true, false, "us-east-1"},
		{"s3://b?region=eu-west-3", true, "", true, false, "eu-west-3"},
		{"s3://b?endpoint=http://127.0.0.1:9000", true, "127.0.0.1:9000", false, true, "us-east-1"},
		{"s3://b?endpoint=minio.local:9000&pathStyle=false", true, "minio.local:9000", true, false, "us-east-1"},
		{"s3://b?endpoint=https://s3.example.com&region=x", true, "s3.example.com", true, true, "x"},
		{"s3://", false, "", false, false, ""},
		{"s3://b/sub", false, "", false, false, ""},
		{"s3://b?endpoint=ftp://x", false, "", false, false, ""},
		{"s3://b?pathStyle=maybe", false, "", false, false, ""},
		{"s3://b?partSizeMB=1", false, "", false, false, ""},
		{"s3://b?bogus=1", false, "", false, false, ""},
	} {
		u, err := url.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		o, err := blob.ParseS3URL(u)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v", c.in, err)
			continue
		}
		if c.ok && (o.Endpoint != c.endpoint || o.Secure != c.secure || o.PathStyle != c.path || o.Region != c.region || o.Bucket != "b") {
			t.Errorf("%s: %+v", c.in, o)
		}
	}
	if _, err := blob.Open(context.Background(), "ftp://x", t.TempDir()); err == nil {
		t.Error("ftp scheme accepted")
	}
}
