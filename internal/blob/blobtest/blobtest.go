// Package blobtest starts a real S3-compatible server (gofakes3 with its
// in-memory backend) on loopback for tests of the S3 blob store, in-process
// ones and black-box ones that pass Env to the service binary.
package blobtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"coreportal/internal/blob"
)

// Credentials the test server is given; gofakes3 accepts any signature, the
// service signs with these like with real ones.
const (
	AccessKey = "test-access-key"
	SecretKey = "test-secret-key"
)

// S3Server is one S3-compatible server with one bucket.
type S3Server struct {
	Endpoint string // http://127.0.0.1:port
	Bucket   string
	Backend  *s3mem.Backend
	srv      *httptest.Server
	handler  http.Handler
}

// StartS3 starts a server with bucket "coreportal-test" for the life of the test.
func StartS3(t testing.TB) *S3Server {
	t.Helper()
	be := s3mem.New()
	s := &S3Server{Bucket: "coreportal-test", Backend: be}
	if err := be.CreateBucket(s.Bucket); err != nil {
		t.Fatalf("create test bucket: %v", err)
	}
	s.handler = gofakes3.New(be, gofakes3.WithoutVersioning()).Server()
	s.srv = httptest.NewServer(s.handler)
	t.Cleanup(func() { s.srv.Close() })
	s.Endpoint = s.srv.URL
	return s
}

// Restart serves the same bucket (objects and unfinished multipart uploads)
// again on the address of Endpoint after Close.
func (s *S3Server) Restart(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", strings.TrimPrefix(s.Endpoint, "http://"))
	if err != nil {
		t.Fatalf("restart test S3 server: %v", err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.handler}}
	srv.Start()
	s.srv = srv
}

// URL is the CORE_BLOB_URL of bucket on this server.
func (s *S3Server) URL(bucket string) string {
	return "s3://" + bucket + "?endpoint=" + url.QueryEscape(s.Endpoint) + "&region=us-east-1"
}

// Env is what a service process needs to use the test bucket.
func (s *S3Server) Env() []string {
	return []string{"CORE_BLOB_URL=" + s.URL(s.Bucket), "AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey}
}

// Store opens the S3 blob store on the test bucket in-process.
func (s *S3Server) Store(t testing.TB) *blob.S3 {
	t.Helper()
	u, err := url.Parse(s.URL(s.Bucket))
	if err != nil {
		t.Fatal(err)
	}
	o, err := blob.ParseS3URL(u)
	if err != nil {
		t.Fatal(err)
	}
	o.Creds = credentials.NewStaticV4(AccessKey, SecretKey, "")
	st, err := blob.NewS3(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Keys lists the object keys of the bucket, sorted.
func (s *S3Server) Keys(t testing.TB) []string {
	t.Helper()
	list, err := s.Backend.ListBucket(s.Bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatalf("list test bucket: %v", err)
	}
	keys := make([]string, 0, len(list.Contents))
	for _, o := range list.Contents {
		keys = append(keys, o.Key)
	}
	sort.Strings(keys)
	return keys
}

// Close stops the server before the end of the test (an outage).
func (s *S3Server) Close() { s.srv.Close() }
