package preview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// office runs LibreOffice conversions.
type office struct {
	bin     string        // soffice
	prlimit string        // prlimit, "" when missing (the time limit still holds)
	unshare []string      // the network-namespace prefix, nil when the system refuses one
	sem     chan struct{} // conversions running at once on this instance
}

// findOffice resolves soffice ("" = PATH, "off" = none) and probes the
// sandbox tools once.
func findOffice(ctx context.Context, soffice string) *office {
	soffice = strings.TrimSpace(soffice)
	if strings.EqualFold(soffice, "off") {
		return nil
	}
	if soffice == "" {
		soffice = "soffice"
	}
	bin, err := exec.LookPath(soffice)
	if err != nil {
		slog.InfoContext(ctx, "LibreOffice not found: PDF and Office documents get no preview", "soffice", soffice)
		return nil
	}
	o := &office{bin: bin, sem: make(chan struct{}, 2)}
	if p, err := exec.LookPath("prlimit"); err == nil {
		o.prlimit = p
	}
	if u, err := exec.LookPath("unshare"); err == nil {
		for _, args := range [][]string{{u, "-n"}, {u, "-r", "-n"}} {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := exec.CommandContext(pctx, args[0], append(args[1:], "true")...).Run()
			cancel()
			if err == nil {
				o.unshare = args
				break
			}
		}
	}
	if o.unshare == nil {
		slog.WarnContext(ctx, "no network namespace available (unshare -n refused): LibreOffice previews run with the host's network")
	}
	slog.InfoContext(ctx, "LibreOffice previews", "soffice", bin, "sandbox", o.sandbox())
	return o
}

// sandbox describes the limits a conversion runs under.
func (o *office) sandbox() string {
	parts := []string{"time limit", "fresh profile"}
	if o.prlimit != "" {
		parts = append(parts, "memory limit")
	}
	if o.unshare != nil {
		parts = append(parts, "no network")
	}
	return strings.Join(parts, ", ")
}

// render converts the document in path: Office documents to a first-page
// PDF and a PNG of the first page, PDFs to a PNG of the first page.
func (o *office) render(ctx context.Context, path, kind string, lim Limits) (*Result, error) {
	select {
	case o.sem <- struct{}{}:
		defer func() { <-o.sem }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	dir, err := os.MkdirTemp("", "coreportal-preview-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ext := ".pdf"
	if kind == KindOffice {
		ext = ".docx" // soffice detects the real format from the content
	}
	in := filepath.Join(dir, "in"+ext)
	if err := os.Symlink(path, in); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	res := &Result{}
	if kind == KindOffice {
		pdf, err := o.convert(ctx, dir, in, `pdf:writer_pdf_Export:{"PageRange":{"type":"string","value":"1"}}`, "in.pdf", lim.MaxPDF, lim.MemoryMB)
		if err != nil {
			return nil, err
		}
		res.PDF = pdf
	}
	png, err := o.convert(ctx, dir, in, "png", "in.png", lim.MaxInput, lim.MemoryMB)
	if err != nil {
		return nil, err
	}
	if res.PNG, err = scaleOne(ctx, bytes.NewReader(png), lim); err != nil {
		return nil, err
	}
	return res, nil
}

// convert runs one soffice conversion of in to format and reads the output
// file out (at most max bytes).
func (o *office) convert(ctx context.Context, dir, in, format, out string, max int64, memoryMB int) ([]byte, error) {
	outDir := filepath.Join(dir, "out")
	if err := os.MkdirAll(outDir, 0o700); err != nil {
		return nil, err
	}
	args := []string{o.bin, "--headless", "--invisible", "--nologo", "--nodefault", "--norestore", "--nolockcheck",
		"-env:UserInstallation=file://" + filepath.Join(dir, "profile"), "--convert-to", format, "--outdir", outDir, in}
	if o.unshare != nil {
		args = append(append([]string{}, o.unshare...), args...)
	}
	if o.prlimit != "" {
		cpu := time.Minute
		if d, ok := ctx.Deadline(); ok {
			cpu = time.Until(d)
		}
		args = append([]string{o.prlimit, "--as=" + strconv.FormatInt(int64(memoryMB)<<20, 10), "--fsize=" + strconv.FormatInt(1<<30, 10),
			"--cpu=" + strconv.Itoa(int(cpu/time.Second)+1), "--core=0", "--"}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "LANG=C.UTF-8", "SAL_USE_VCLPLUGIN=svp"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &limitedWriter{w: &stderr, n: 2048}
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers soffice left behind
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: LibreOffice took longer than the time limit", ErrLimit)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: LibreOffice failed (%v): %s", ErrLimit, err, strings.TrimSpace(stderr.String()))
	}
	f, err := os.Open(filepath.Join(outDir, out))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("preview: LibreOffice made no %s (%s)", format, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: the converted %s is over %d bytes", ErrLimit, format, max)
	}
	return b, nil
}

// limitedWriter keeps the first n bytes written.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
