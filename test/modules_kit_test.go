package test

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"coreportal/internal/modules"
	"coreportal/test/kit"
)

// coremod builds a .coremod archive: module.json from manifest plus extra
// entries (name -> bytes), e.g. "deps/x.coremod".
func coremod(t testing.TB, manifest any, extra ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
	}
	raw, ok := manifest.([]byte)
	if !ok && manifest != nil {
		var err error
		if raw, err = json.Marshal(manifest); err != nil {
			t.Fatal(err)
		}
	}
	if raw != nil {
		add("module.json", raw)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		add(extra[i].(string), extra[i+1].([]byte))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mod is a module.json with a node per slug given (keys nodes.<slug>).
func mod(id, version string, requires []string, resources ...map[string]any) map[string]any {
	m := map[string]any{"id": id, "version": version, "title": id + " " + version}
	if len(requires) > 0 {
		m["requires"] = requires
	}
	if len(resources) > 0 {
		m["resources"] = resources
	}
	return m
}

func node(key, slug string) map[string]any {
	return map[string]any{"key": key, "type": "node", "title": "Node " + slug, "slug": slug}
}

// writeCatalog fills a MODULE_CATALOG_PATH folder: catalog.json and packages.
func writeCatalog(t testing.TB, dir string, pkgs map[string][]byte, entries []map[string]any) {
	t.Helper()
	for name, data := range pkgs {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := json.Marshal(map[string]any{"modules": entries})
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// signedEntry is a catalog.json entry of a paid vendor module signed with
// the tests' vendor key over signedBytes (the package itself when nil).
func signedEntry(pkg []byte, id, file string, signedBytes []byte) map[string]any {
	if signedBytes == nil {
		signedBytes = pkg
	}
	sum, signed := sha256.Sum256(pkg), sha256.Sum256(signedBytes)
	sig := ed25519.Sign(vendorPriv, modules.ModuleMessage(id, "1.0.0", hex.EncodeToString(signed[:]), false))
	return map[string]any{"id": id, "version": "1.0.0", "title": id, "package": file, "isFree": false,
		"sha256": hex.EncodeToString(sum[:]), "signature": hex.EncodeToString(sig)}
}

// installModule uploads a package to POST /modules/install.
func installModule(t testing.TB, c *kit.Client, pkg []byte, query string) *kit.Response {
	t.Helper()
	return c.Upload(t, "POST", "/modules/install"+query, "package", "module.coremod", pkg, nil)
}

// nodeSlugs returns the slugs of every node the admin sees, with their ids.
func nodeSlugs(t testing.TB, c *kit.Client) map[string]map[string]any {
	t.Helper()
	var ns []map[string]any
	c.Do(t, "GET", "/nodes", nil).Expect(t, 200).Into(t, &ns)
	out := map[string]map[string]any{}
	for _, n := range ns {
		out[n["slug"].(string)] = n
	}
	return out
}
