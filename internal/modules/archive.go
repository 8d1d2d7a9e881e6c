package modules

import (
	"archive/zip"
	"bytes"
	"io"
	"path"
	"strings"

	"coreportal/internal/fault"
)

// Limits bound what a package may hold. The upload itself is capped at
// MaxPackage bytes before the archive is opened.
type Limits struct {
	MaxPackage      int64 // bytes of the .coremod file (SPEC Limits: 50 MB)
	MaxUncompressed int64 // total uncompressed bytes of all entries
	MaxEntries      int   // number of entries
}

// DefaultLimits: 50 MB packages (SPEC), at most 200 MB once unpacked and
// 2000 entries, which no real module comes near and every bomb exceeds.
var DefaultLimits = Limits{MaxPackage: 50 << 20, MaxUncompressed: 200 << 20, MaxEntries: 2000}

// maxDepth bounds nested packages: a dependency inside deps/ may not carry deps/ itself.
const maxDepth = 1

// Package is a module ready to install: its manifest and where it came from.
type Package struct {
	Manifest *Manifest
	Source   string     // "upload", "deps/x.coremod", "catalog", "remote", "vendor"
	Deps     []*Package // packages found in the deps/ folder of the archive
	Vendor   bool       // from the catalog embedded in this release (trusted)
	Free     bool       // needs no licence entitlement
}

// ReadPackage opens a .coremod archive of size bytes and validates it:
// entry names (no absolute paths, .., backslashes or duplicates), entry
// count and total uncompressed size, module.json at the root, and the
// packages in deps/.
func ReadPackage(r io.ReaderAt, size int64, lim Limits, provisioners map[string]Provisioner) (*Package, error) {
	return readPackage(r, size, lim, provisioners, "upload", 0)
}

func readPackage(r io.ReaderAt, size int64, lim Limits, provisioners map[string]Provisioner, source string, depth int) (*Package, error) {
	if size > lim.MaxPackage {
		return nil, fault.Validation("package", "%s is larger than %d bytes", source, lim.MaxPackage)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fault.Validation("package", "%s is not a valid ZIP archive", source)
	}
	if err := checkEntries(zr, lim); err != nil {
		return nil, err
	}
	if err := inflateAll(zr, lim); err != nil {
		return nil, err
	}
	var manifest *zip.File
	var deps []*zip.File
	for _, f := range zr.File {
		switch {
		case f.Name == "module.json":
			manifest = f
		case strings.HasPrefix(f.Name, "deps/") && strings.HasSuffix(f.Name, ".coremod") && !strings.Contains(f.Name[5:], "/"):
			deps = append(deps, f)
		}
	}
	if manifest == nil {
		return nil, fault.Validation("package", "%s has no module.json in its root", source)
	}
	raw, err := readEntry(manifest, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(raw, provisioners)
	if err != nil {
		return nil, err
	}
	pkg := &Package{Manifest: m, Source: source}
	if len(deps) > 0 && depth >= maxDepth {
		return nil, fault.Validation("package", "%s: a package inside deps/ may not carry deps/ itself", source)
	}
	// dependencies are opened in memory: together they may not exceed one package
	var depBytes uint64
	for _, f := range deps {
		if depBytes += f.UncompressedSize64; depBytes > uint64(lim.MaxPackage) {
			return nil, fault.Validation("package", "%s: the packages in deps/ are larger than %d bytes together", source, lim.MaxPackage)
		}
		b, err := readEntry(f, lim.MaxPackage)
		if err != nil {
			return nil, err
		}
		dep, err := readPackage(bytes.NewReader(b), int64(len(b)), lim, provisioners, f.Name, depth+1)
		if err != nil {
			return nil, err
		}
		pkg.Deps = append(pkg.Deps, dep)
	}
	return pkg, nil
}

// checkEntries refuses names that could escape a folder if the archive were
// ever unpacked, names given twice (two tools would pick different ones),
// and archives whose declared sizes exceed the limits.
func checkEntries(zr *zip.Reader, lim Limits) error {
	if len(zr.File) > lim.MaxEntries {
		return fault.Validation("package", "the archive has more than %d entries", lim.MaxEntries)
	}
	seen := make(map[string]bool, len(zr.File))
	var total uint64
	for _, f := range zr.File {
		if err := CheckEntryName(f.Name); err != nil {
			return err
		}
		key := strings.ToLower(strings.TrimSuffix(f.Name, "/"))
		if seen[key] {
			return fault.Validation("package", "the archive holds %q twice", f.Name)
		}
		seen[key] = true
		total += f.UncompressedSize64
		if total > uint64(lim.MaxUncompressed) {
			return fault.Validation("package", "the archive unpacks to more than %d bytes", lim.MaxUncompressed)
		}
	}
	return nil
}

// inflateAll reads every entry once, through what is left of the
// MaxUncompressed budget: declared sizes can lie (checkEntries only catches
// honest ones), and an entry whose size or checksum does not match its
// header is corrupt, though nothing but module.json and deps/ is used.
func inflateAll(zr *zip.Reader, lim Limits) error {
	left := lim.MaxUncompressed
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fault.Validation("package", "%s cannot be read: %s", f.Name, err.Error())
		}
		n, err := io.Copy(io.Discard, io.LimitReader(rc, left+1))
		rc.Close()
		if left -= n; left < 0 {
			return fault.Validation("package", "the archive unpacks to more than %d bytes", lim.MaxUncompressed)
		}
		if err != nil {
			return fault.Validation("package", "%s is corrupt: %s", f.Name, err.Error())
		}
	}
	return nil
}

// CheckEntryName refuses absolute paths, drive letters, backslashes, empty
// or . and .. elements and control characters.
func CheckEntryName(name string) error {
	bad := func(why string) error {
		return fault.Validation("package", "archive entry %q %s", name, why)
	}
	switch {
	case name == "" || len(name) > 512:
		return bad("has an empty or too long name")
	case strings.Contains(name, `\`):
		return bad("contains a backslash")
	case strings.HasPrefix(name, "/") || (len(name) >= 2 && name[1] == ':'):
		return bad("is an absolute path")
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return bad("contains a control character")
	}
	for _, el := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if el == "" || el == "." || el == ".." {
			return bad("escapes its folder or has an empty element")
		}
	}
	if path.Clean(name) != strings.TrimSuffix(name, "/") {
		return bad("is not a clean path")
	}
	return nil
}

// readEntry reads one entry through a LimitReader: the declared size is not
// trusted, a stream that inflates beyond max is refused.
func readEntry(f *zip.File, max int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, fault.Validation("package", "%s is larger than %d bytes", f.Name, max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fault.Validation("package", "%s cannot be read: %s", f.Name, err.Error())
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		// the archive is a temp file or bytes in memory: a read error is a corrupt entry
		return nil, fault.Validation("package", "%s is corrupt: %s", f.Name, err.Error())
	}
	if int64(len(b)) > max {
		return nil, fault.Validation("package", "%s is larger than %d bytes", f.Name, max)
	}
	return b, nil
}
