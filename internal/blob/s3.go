package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// DefaultPartSize is the multipart chunk of S3 uploads of unknown size: the
// client buffers one part at a time, so a Put holds about this much memory
// whatever the size of the content (S3 allows 10,000 parts: 160 GiB).
const DefaultPartSize = 16 << 20

// S3Options configure an S3-compatible store.
type S3Options struct {
	Bucket    string
	Endpoint  string // host[:port]; empty = s3.amazonaws.com
	Secure    bool   // https to the endpoint
	Region    string
	PathStyle bool // bucket in the path (local servers) instead of the host name
	Creds     *credentials.Credentials
	PartSize  uint64 // 0 = DefaultPartSize
}

// S3 stores blobs as objects of one bucket of an S3-compatible service.
type S3 struct {
	c        *minio.Client
	creds    *credentials.Credentials
	bucket   string
	partSize uint64
}

// ParseS3URL reads s3://bucket?endpoint=…&region=…&pathStyle=… . The
// endpoint may carry a scheme (http:// for local servers, https:// by
// default); without an endpoint the store talks to AWS. Path-style bucket
// addressing is the default for a custom endpoint and can be forced either
// way with pathStyle=true|false.
func ParseS3URL(u *url.URL) (S3Options, error) {
	o := S3Options{Bucket: u.Host, Secure: true, Region: "us-east-1"}
	if o.Bucket == "" {
		return o, errors.New("CORE_BLOB_URL: s3://bucket is missing the bucket name")
	}
	if u.Path != "" && u.Path != "/" {
		return o, fmt.Errorf("CORE_BLOB_URL: unexpected path %q after the bucket name", u.Path)
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "endpoint", "region", "pathStyle", "partSizeMB":
		default:
			return o, fmt.Errorf("CORE_BLOB_URL: unknown parameter %q (endpoint, region, pathStyle, partSizeMB)", k)
		}
	}
	if r := q.Get("region"); r != "" {
		o.Region = r
	}
	if ep := q.Get("endpoint"); ep != "" {
		o.PathStyle = true
		if strings.Contains(ep, "://") {
			eu, err := url.Parse(ep)
			if err != nil || eu.Host == "" || (eu.Scheme != "http" && eu.Scheme != "https") {
				return o, fmt.Errorf("CORE_BLOB_URL: endpoint %q must be host[:port] or http(s)://host[:port]", ep)
			}
			o.Secure = eu.Scheme == "https"
			ep = eu.Host
		}
		o.Endpoint = ep
	}
	if ps := q.Get("pathStyle"); ps != "" {
		b, err := strconv.ParseBool(ps)
		if err != nil {
			return o, fmt.Errorf("CORE_BLOB_URL: pathStyle must be true or false")
		}
		o.PathStyle = b
	}
	if mb := q.Get("partSizeMB"); mb != "" {
		n, err := strconv.Atoi(mb)
		if err != nil || n < 5 || n > 5120 {
			return o, fmt.Errorf("CORE_BLOB_URL: partSizeMB must be between 5 and 5120")
		}
		o.PartSize = uint64(n) << 20
	}
	return o, nil
}

// NewS3 connects to the bucket and checks that it exists.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	ep := o.Endpoint
	if ep == "" {
		ep = "s3.amazonaws.com"
	}
	lookup := minio.BucketLookupAuto
	if o.PathStyle {
		lookup = minio.BucketLookupPath
	}
	creds := o.Creds
	if creds == nil {
		creds = credentials.NewEnvAWS()
	}
	c, err := minio.New(ep, &minio.Options{Creds: creds, Secure: o.Secure, Region: o.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("CORE_BLOB_URL: S3 client: %w", err)
	}
	s := &S3{c: c, creds: creds, bucket: o.Bucket, partSize: o.PartSize}
	if s.partSize == 0 {
		s.partSize = DefaultPartSize
	}
	if err := s.Ping(ctx); err != nil {
		return nil, fmt.Errorf("CORE_BLOB_URL: %w", err)
	}
	return s, nil
}

// Ping checks that the bucket answers and exists.
func (s *S3) Ping(ctx context.Context) error {
	ok, err := s.c.BucketExists(ctx, s.bucket)
	if err != nil {
		return fmt.Errorf("S3 bucket %q at %s: %w", s.bucket, s.c.EndpointURL().Host, err)
	}
	if !ok {
		return fmt.Errorf("S3 bucket %q does not exist at %s", s.bucket, s.c.EndpointURL().Host)
	}
	return nil
}

func notFound(err error) bool {
	var r minio.ErrorResponse
	if errors.As(err, &r) {
		return r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey"
	}
	return false
}

// Put streams r as a multipart upload of unknown size (one part buffered at
// a time); minio-go aborts the upload when it fails or ctx ends, so nothing
// is left behind.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := CheckKey(key); err != nil {
		return 0, err
	}
	info, err := s.c.PutObject(ctx, s.bucket, key, ctxReader{ctx, r}, -1, minio.PutObjectOptions{
		PartSize:    s.partSize,
		NumThreads:  1,
		ContentType: "application/octet-stream",
		// parts go with UNSIGNED-PAYLOAD and a CRC32C checksum header rather
		// than the chunked streaming signature: no SHA-256 pass over every
		// part, and servers that do not speak aws-chunked bodies on part
		// uploads (gofakes3, some gateways) store the bytes unaltered
		DisableContentSha256: true,
	})
	if err != nil {
		return 0, fmt.Errorf("write blob: %w", err)
	}
	return info.Size, nil
}

// Get opens the object of key.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return s.GetRange(ctx, key, 0, -1)
}

// GetRange opens a section of the object of key with one ranged GET (the
// server cuts a range that reaches past the end). A range starting at or
// past the end gives empty content, as on the local store, instead of the
// server's 416.
func (s *S3) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if err := checkRange(offset, length); err != nil {
		return nil, err
	}
	if length == 0 {
		if _, err := s.Stat(ctx, key); err != nil {
			return nil, err
		}
		return io.NopCloser(strings.NewReader("")), nil
	}
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	var opts minio.GetObjectOptions
	switch {
	case length > 0:
		err := opts.SetRange(offset, offset+length-1)
		if err != nil {
			return nil, fmt.Errorf("blob range: %w", err)
		}
	case offset > 0:
		if err := opts.SetRange(offset, 0); err != nil {
			return nil, fmt.Errorf("blob range: %w", err)
		}
	}
	obj, err := s.c.GetObject(ctx, s.bucket, key, opts)
	if err != nil {
		return nil, fmt.Errorf("open blob: %w", err)
	}
	// GetObject is lazy: Stat sends the request so a missing key fails here
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		var r minio.ErrorResponse
		switch {
		case notFound(err):
			return nil, ErrNotFound
		case errors.As(err, &r) && (r.Code == "InvalidRange" || r.StatusCode == http.StatusRequestedRangeNotSatisfiable):
			return io.NopCloser(strings.NewReader("")), nil // the object exists; the range starts past its end
		}
		return nil, fmt.Errorf("open blob: %w", err)
	}
	return obj, nil
}

// Stat returns the size of the object of key.
func (s *S3) Stat(ctx context.Context, key string) (int64, error) {
	if err := CheckKey(key); err != nil {
		return 0, err
	}
	info, err := s.c.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if notFound(err) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("stat blob: %w", err)
	}
	return info.Size, nil
}

// Delete removes the object of key (S3 does not fail on a missing key).
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if err := s.c.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !notFound(err) {
		return fmt.Errorf("delete blob: %w", err)
	}
	return nil
}

// Creds are the credentials the store signs with.
func (s *S3) Creds() *credentials.Credentials { return s.creds }
