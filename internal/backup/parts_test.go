package backup

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTar writes the entries (name, content, type) as a tar file.
func writeTar(t *testing.T, entries [][3]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.tar")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, e := range entries {
		h := &tar.Header{Name: e[0], Mode: 0o600, Size: int64(len(e[1])), Typeflag: tar.TypeReg}
		if e[2] == "symlink" {
			h = &tar.Header{Name: e[0], Linkname: e[1], Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := tw.Write([]byte(e[1])); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestArchivePartsAreUnique: an archive whose part names repeat (the
// verifier would check one copy, the restore load another) or that carries
// anything but regular files is refused by both readers, and a part that
// differs from its verified sum fails the restore's read.
func TestArchivePartsAreUnique(t *testing.T) {
	cases := []struct {
		name    string
		entries [][3]string
		want    string
	}{
		{"duplicate table part", [][3]string{{"db/users.jsonl.gz", "evil", ""}, {"db/users.jsonl.gz", "good", ""}}, "appears twice"},
		{"duplicate manifest", [][3]string{{"manifest.json", "{}", ""}, {"manifest.json", "{}", ""}}, "appears twice"},
		{"symlink", [][3]string{{"blobs/x", "/etc/passwd", "symlink"}}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTar(t, c.entries)
			if _, err := readParts(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("readParts: %v", err)
			}
			err := eachPart(path, map[string]string{c.entries[0][0]: sum(c.entries[0][1])}, func(string, io.Reader) error { return nil })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("eachPart: %v", err)
			}
		})
	}
	t.Run("part changed after verification", func(t *testing.T) {
		path := writeTar(t, [][3]string{{"db/users.jsonl.gz", "changed", ""}})
		err := eachPart(path, map[string]string{"db/users.jsonl.gz": sum("verified")}, func(_ string, r io.Reader) error {
			_, err := io.Copy(io.Discard, r)
			return err
		})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "changed after") {
			t.Fatalf("eachPart: %v", err)
		}
	})
	t.Run("a sound archive reads", func(t *testing.T) {
		path := writeTar(t, [][3]string{{"db/a.jsonl.gz", "a", ""}, {"blobs/k", "b", ""}})
		read := map[string]string{}
		err := eachPart(path, map[string]string{"db/a.jsonl.gz": sum("a"), "blobs/k": sum("b")}, func(name string, r io.Reader) error {
			b, err := io.ReadAll(r)
			read[name] = string(b)
			return err
		})
		if err != nil || read["db/a.jsonl.gz"] != "a" || read["blobs/k"] != "b" {
			t.Fatalf("eachPart: %v %v", err, read)
		}
	})
}
