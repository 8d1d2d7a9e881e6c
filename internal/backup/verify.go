package backup

import (
	"archive/tar"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"coreportal/internal/blob"
)

// ErrCorrupt marks an archive that fails verification.
var ErrCorrupt = errors.New("backup archive is corrupt")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Checked is an archive Verify accepted.
type Checked struct {
	Manifest *Manifest
	// Verified: the manifest is signed under the configured key.
	Verified bool
	// Why the manifest could not be verified (empty when Verified).
	Why string
	// secrets is the decrypted secrets part (only when Verified).
	secrets *secretBag
	// NotRestored are the secrets the restore left out (filled by apply).
	NotRestored []string
}

// maxPart bounds the manifest, its signature and the secrets part, which
// are read into memory.
const maxPart = 256 << 20

// Verify reads the whole archive, checks every part against the manifest
// (SHA-256 and size, none missing, none extra) and the manifest signature
// with key. A manifest whose signature does not match under key is refused
// (ErrTampered); one that cannot be checked (no key, not signed, another
// key) comes back with Verified false and why.
func Verify(path string, key *Key) (*Checked, error) {
	rd, err := readParts(path)
	if err != nil {
		return nil, err
	}
	if rd.manifest == nil {
		return nil, corrupt("no manifest")
	}
	m := &Manifest{}
	if err := json.Unmarshal(rd.manifest, m); err != nil {
		return nil, corrupt("manifest: %v", err)
	}
	if m.FormatVersion < 1 || m.FormatVersion > FormatVersion {
		return nil, corrupt("format version %d, this service reads 1 to %d", m.FormatVersion, FormatVersion)
	}
	if err := checkParts(m, rd.sums, rd.sizes); err != nil {
		return nil, err
	}
	d, why, err := key.authenticate(m, rd.manifest, rd.sig)
	if err != nil {
		return nil, err
	}
	c := &Checked{Manifest: m, Verified: d != nil, Why: why}
	if d != nil && m.Secrets.Encrypted {
		plain, err := d.open(rd.sealed)
		if err != nil {
			return nil, err
		}
		c.secrets = newBag()
		if err := json.Unmarshal(plain, c.secrets); err != nil {
			return nil, corrupt("secrets: %v", err)
		}
	}
	return c, nil
}

// archiveRead is what one pass over an archive gives: the manifest, its
// signature and the secrets part as bytes, every other part's SHA-256 and size.
type archiveRead struct {
	manifest, sig, sealed []byte
	sums                  map[string]string
	sizes                 map[string]int64
}

func readParts(path string) (*archiveRead, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open archive: %w", err)
	}
	defer f.Close()
	rd := &archiveRead{sums: map[string]string{}, sizes: map[string]int64{}}
	seen := partNames{}
	tr := tar.NewReader(bufio.NewReaderSize(f, 1<<20))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return rd, nil
		}
		if err != nil {
			return nil, corrupt("%v", err)
		}
		if err := seen.add(h); err != nil {
			return nil, err
		}
		var keep *[]byte
		switch h.Name {
		case "manifest.json":
			keep = &rd.manifest
		case sigPart:
			keep = &rd.sig
		case secretsPart:
			keep = &rd.sealed
		}
		if keep == nil {
			hw := &hashWriter{h: sha256.New()}
			if _, err := io.Copy(hw, tr); err != nil {
				return nil, corrupt("%s: %v", h.Name, err)
			}
			rd.sums[h.Name], rd.sizes[h.Name] = hex.EncodeToString(hw.h.Sum(nil)), hw.n
			continue
		}
		if *keep != nil {
			return nil, corrupt("%s appears twice", h.Name)
		}
		if *keep, err = io.ReadAll(io.LimitReader(tr, maxPart)); err != nil {
			return nil, corrupt("%s: %v", h.Name, err)
		}
		if h.Name == secretsPart {
			sum := sha256.Sum256(*keep)
			rd.sums[h.Name], rd.sizes[h.Name] = hex.EncodeToString(sum[:]), int64(len(*keep))
		}
	}
}

// checkParts compares the parts read (sums, sizes) with the manifest.
func checkParts(m *Manifest, sums map[string]string, sizes map[string]int64) error {
	check := func(part, sum string, size int64) error {
		got, ok := sums[part]
		if !ok {
			return corrupt("part %s is missing", part)
		}
		if got != sum || sizes[part] != size {
			return corrupt("part %s does not match its checksum", part)
		}
		delete(sums, part)
		return nil
	}
	for _, t := range m.Tables {
		if err := check(t.Part, t.SHA256, t.Size); err != nil {
			return err
		}
	}
	for _, b := range m.Blobs {
		if err := blob.CheckKey(b.Key); err != nil || b.Part != "blobs/"+b.Key {
			return corrupt("bad blob key %q", b.Key)
		}
		if err := check(b.Part, b.SHA256, b.Size); err != nil {
			return err
		}
	}
	if m.Secrets.Encrypted {
		if m.Secrets.Part != secretsPart {
			return corrupt("bad secrets part %q", m.Secrets.Part)
		}
		if err := check(m.Secrets.Part, m.Secrets.SHA256, m.Secrets.Size); err != nil {
			return err
		}
	}
	for extra := range sums {
		return corrupt("part %s is not in the manifest", extra)
	}
	return nil
}

// partNames are the names of the parts read so far. A name may appear once
// and only as a regular file: tar lets a name repeat, and a reader that
// checked one copy while another reader restored the other would restore
// what was never verified.
type partNames map[string]bool

func (p partNames) add(h *tar.Header) error {
	if h.Typeflag != tar.TypeReg {
		return corrupt("%s is not a regular file", h.Name)
	}
	if p[h.Name] {
		return corrupt("%s appears twice", h.Name)
	}
	p[h.Name] = true
	return nil
}

// partSums are the SHA-256 sums the manifest gives its parts.
func partSums(m *Manifest) map[string]string {
	sums := map[string]string{}
	for _, t := range m.Tables {
		sums[t.Part] = t.SHA256
	}
	for _, b := range m.Blobs {
		sums[b.Part] = b.SHA256
	}
	return sums
}
