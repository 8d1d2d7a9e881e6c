package modules

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"strings"
	"testing"

	"coreportal/internal/fault"
)

type entry struct {
	name string
	body []byte
}

func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawZip holds one deflated entry whose header declares size and crc as
// given, whatever body inflates to (a lying or corrupt archive).
func rawZip(t testing.TB, name string, body []byte, size uint64, crc uint32) []byte {
	t.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withEntries appends the entries of more to the archive a (both small).
func withEntries(t testing.TB, a []byte, more ...entry) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range more {
		w, _ := zw.Create(e.name)
		w.Write(e.body)
	}
	zw.Close()
	return buf.Bytes()
}

func manifestJSON(id, version string, requires ...string) []byte {
	r := ""
	if len(requires) > 0 {
		r = `,"requires":["` + strings.Join(requires, `","`) + `"]`
	}
	return []byte(`{"id":"` + id + `","version":"` + version + `","title":"T"` + r + `}`)
}

func TestReadPackage(t *testing.T) {
	good := manifestJSON("acme.tasks", "1.0.0", "acme.base@>=1.0.0")
	dep := zipOf(t, entry{"module.json", manifestJSON("acme.base", "1.1.0")})
	nested := zipOf(t, entry{"module.json", manifestJSON("acme.base", "1.0.0")}, entry{"deps/x.coremod", dep})
	bomb := bytes.Repeat([]byte{0}, 3<<20) // compresses to a few KB
	lim := Limits{MaxPackage: 1 << 20, MaxUncompressed: 2 << 20, MaxEntries: 10}
	cases := []struct {
		name string
		data []byte
		want string // substring of the 400 message, "" = valid
	}{
		{"valid with a dependency", zipOf(t, entry{"module.json", good}, entry{"deps/acme.base.coremod", dep}, entry{"assets/logo.txt", []byte("x")}), ""},
		{"not a zip", []byte("PK\x03\x04 nothing else"), "not a valid ZIP"},
		{"no module.json", zipOf(t, entry{"other.json", good}), "no module.json"},
		{"module.json in a folder only", zipOf(t, entry{"pkg/module.json", good}), "no module.json"},
		{"zip slip", zipOf(t, entry{"module.json", good}, entry{"../evil.sh", []byte("x")}), "escapes"},
		{"inner dot-dot", zipOf(t, entry{"module.json", good}, entry{"a/../../evil", []byte("x")}), "escapes"},
		{"absolute", zipOf(t, entry{"module.json", good}, entry{"/etc/passwd", []byte("x")}), "absolute"},
		{"drive letter", zipOf(t, entry{"module.json", good}, entry{"C:/x", []byte("x")}), "absolute"},
		{"backslash", zipOf(t, entry{"module.json", good}, entry{`..\evil`, []byte("x")}), "backslash"},
		{"duplicate", zipOf(t, entry{"module.json", good}, entry{"a.txt", nil}, entry{"A.TXT", nil}), "twice"},
		{"duplicate module.json", zipOf(t, entry{"module.json", good}, entry{"module.json", good}), "twice"},
		{"bomb", zipOf(t, entry{"module.json", good}, entry{"big.bin", bomb}), "unpacks to more than"},
		{"too many entries", zipOf(t, entry{"module.json", good}, entry{"1", nil}, entry{"2", nil}, entry{"3", nil}, entry{"4", nil}, entry{"5", nil}, entry{"6", nil}, entry{"7", nil}, entry{"8", nil}, entry{"9", nil}, entry{"10", nil}), "more than 10 entries"},
		{"oversize", append(zipOf(t, entry{"module.json", good}), make([]byte, 1<<20)...), "larger than"},
		{"bad module.json", zipOf(t, entry{"module.json", []byte(`{"id":"x"}`)}), "version"},
		{"deps with deps", zipOf(t, entry{"module.json", good}, entry{"deps/n.coremod", nested}), "may not carry deps/"},
		{"lying size", withEntries(t, rawZip(t, "big.bin", bomb, 10, crc32.ChecksumIEEE(bomb)), entry{"module.json", good}), "big.bin is corrupt"},
		{"wrong checksum", withEntries(t, rawZip(t, "a.txt", []byte("hello"), 5, 1), entry{"module.json", good}), "corrupt"},
		{"NUL in module.json", zipOf(t, entry{"module.json", []byte(`{"id":"acme.tasks","version":"1.0.0","title":"T\u0000"}`)}), "NUL"},
		{"broken dependency", zipOf(t, entry{"module.json", good}, entry{"deps/n.coremod", []byte("junk")}), "not a valid ZIP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkg, err := ReadPackage(bytes.NewReader(c.data), int64(len(c.data)), lim, builtinProvisioners())
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if pkg.Manifest.ID != "acme.tasks" || len(pkg.Deps) != 1 || pkg.Deps[0].Manifest.Version != "1.1.0" {
					t.Fatalf("package %+v", pkg)
				}
				return
			}
			fe, ok := fault.As(err)
			if !ok || fe.Code != fault.CodeValidation || !strings.Contains(fe.Message, c.want) {
				t.Fatalf("want 400 with %q, got %v", c.want, err)
			}
		})
	}
}

func TestReadEntryDoesNotTrustDeclaredSize(t *testing.T) {
	// an entry whose header claims 10 bytes but inflates to 3 MB is cut at the limit
	data := zipOf(t, entry{"module.json", bytes.Repeat([]byte(" "), 3<<20)})
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	f := zr.File[0]
	f.UncompressedSize64 = 10
	if _, err := readEntry(f, 1<<20); err == nil {
		t.Fatal("an entry larger than its declared size was read whole")
	}
}
