// Command blob measures streaming of a large content through the blob
// stores with bounded memory:
//
//   - mode store: blob.S3 (minio-go) Put / Get / GetRange of -size bytes
//     against an S3 server (gofakes3, in-memory) in a child process on
//     loopback; reports this process's peak resident size.
//   - mode service: the real binary (CORE_BLOB_URL on the same S3 child, or
//     the local folder with -store local) receives a list item attachment of
//     -size bytes streamed over HTTP and serves it back; reports the
//     service's resident size before and its peak (VmHWM) after upload and
//     after download.
//
// Content is pseudo-random (not compressible), generated on the fly on both
// sides and checked by SHA-256, so the harness holds no copy of it.
//
//	go run ./bench/blob -mode store -size 1GiB
//	go run ./bench/blob -mode service -store s3 -size 1GiB
//	go run ./bench/blob -mode service -store local -size 1GiB
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"coreportal/internal/blob"

	"coreportal/bench/benchkit"
)

const (
	bucket    = "bench"
	accessKey = "bench-access"
	secretKey = "bench-secret"
)

func main() {
	mode := flag.String("mode", "store", "store (blob.S3 in this process) or service (the real binary over HTTP)")
	storeKind := flag.String("store", "s3", "service mode: s3 or local")
	sizeFlag := flag.String("size", "1GiB", "content size (B, KiB, MiB, GiB)")
	partMB := flag.Int("part", 16, "S3 multipart part size in MiB")
	prebuilt := flag.String("bin", "", "service mode: use this coreportal binary instead of building ./cmd/coreportal")
	serveS3 := flag.Bool("serve-s3", false, "internal: run the S3 server and print its address")
	flag.Parse()
	if *serveS3 {
		runS3Server()
		return
	}
	size, err := parseSize(*sizeFlag)
	benchkit.Must(err)
	endpoint, stop := startS3Child()
	defer stop()
	s3URL := fmt.Sprintf("s3://%s?endpoint=%s&region=us-east-1&partSizeMB=%d", bucket, url.QueryEscape(endpoint), *partMB)
	switch *mode {
	case "store":
		benchStore(s3URL, size)
	case "service":
		if *storeKind == "local" {
			s3URL = ""
		}
		benchService(*prebuilt, s3URL, size)
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
}

// runS3Server serves gofakes3 on a loopback port until stdin closes.
func runS3Server() {
	be := s3mem.New()
	benchkit.Must(be.CreateBucket(bucket))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
	fmt.Println("http://" + ln.Addr().String())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	log.Fatal(http.Serve(ln, gofakes3.New(be, gofakes3.WithoutVersioning()).Server()))
}

func startS3Child() (string, func()) {
	self, err := os.Executable()
	benchkit.Must(err)
	cmd := exec.Command(self, "-serve-s3")
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

// content is a deterministic pseudo-random stream of n bytes.
type content struct {
	rng *rand.ChaCha8
	n   int64
}

func newContent(n int64) *content { return &content{rng: rand.NewChaCha8([32]byte{1, 2, 3}), n: n} }

func (c *content) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, _ := c.rng.Read(p)
	c.n -= int64(k)
	return k, nil
}

func digest(r io.Reader) (string, int64) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	benchkit.Must(err)
	return hex.EncodeToString(h.Sum(nil)), n
}

func selfPeakRSS() int64 {
	var ru syscall.Rusage
	benchkit.Must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return ru.Maxrss << 10 // KiB on Linux
}

func benchStore(s3URL string, size int64) {
	ctx := context.Background()
	u, err := url.Parse(s3URL)
	benchkit.Must(err)
	o, err := blob.ParseS3URL(u)
	benchkit.Must(err)
	o.Creds = credentials.NewStaticV4(accessKey, secretKey, "")
	st, err := blob.NewS3(ctx, o)
	benchkit.Must(err)
	want, _ := digest(newContent(size))
	base := selfPeakRSS()
	t0 := time.Now()
	n, err := st.Put(ctx, "bench/large", newContent(size))
	benchkit.Must(err)
	put := time.Since(t0)
	afterPut := selfPeakRSS()
	t0 = time.Now()
	r, err := st.Get(ctx, "bench/large")
	benchkit.Must(err)
	got, m := digest(r)
	r.Close()
	get := time.Since(t0)
	if got != want || m != size || n != size {
		log.Fatalf("content differs: put %d, got %d bytes, sha %s vs %s", n, m, got, want)
	}
	rr, err := st.GetRange(ctx, "bench/large", size-1<<20, -1)
	benchkit.Must(err)
	_, tail := digest(rr)
	rr.Close()
	benchkit.Must(st.Delete(ctx, "bench/large"))
	fmt.Printf("store s3: %s, part %d MiB\n", human(size), o.PartSize>>20)
	fmt.Printf("  put  %6.1f s  %6.1f MB/s\n", put.Seconds(), float64(size)/1e6/put.Seconds())
	fmt.Printf("  get  %6.1f s  %6.1f MB/s (sha-256 checked)\n", get.Seconds(), float64(size)/1e6/get.Seconds())
	fmt.Printf("  tail range %d bytes\n", tail)
	fmt.Printf("  peak RSS of the client process: before %s, after put %s, after get %s\n", human(base), human(afterPut), human(selfPeakRSS()))
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d B", n)
}

func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			var v int64
			if _, err := fmt.Sscanf(strings.TrimSuffix(s, u.suffix), "%d", &v); err != nil || v <= 0 {
				return 0, fmt.Errorf("bad size %q", s)
			}
			return v * u.mult, nil
		}
	}
	return 0, fmt.Errorf("bad size %q (use B, KiB, MiB or GiB)", s)
}

func buildBinary(prebuilt, dir string) string {
	if prebuilt != "" {
		return prebuilt
	}
	bin := filepath.Join(dir, "coreportal")
	build := exec.Command("go", "build", "-o", bin, "./cmd/coreportal")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	benchkit.Must(build.Run())
	return bin
}
