package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// envName matches the environment variables the service reads: every one is
// a quoted upper-case name with one of these prefixes in the non-test sources.
var envName = regexp.MustCompile(`"((?:CORE|SMTP|SEED|DATABASE|MODULE|AWS|LDAP)_[A-Z0-9_]+)"`)

// TestRepositoryDocumentsItself holds the files a newcomer reads first to the
// code: every variable the service reads is in .env.example and the README,
// and the licence, contribution guide and changelog exist.
func TestRepositoryDocumentsItself(t *testing.T) {
	t.Parallel()
	root := ".."
	for _, f := range []string{"LICENSE", "CONTRIBUTING.md", "CHANGELOG.md", ".env.example", "README.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	example := readText(t, filepath.Join(root, ".env.example"))
	readme := readText(t, filepath.Join(root, "README.md"))
	for name := range sourceEnvNames(t, root) {
		if !regexp.MustCompile(`(?m)^` + name + `=`).MatchString(example) {
			t.Errorf(".env.example does not list %s", name)
		}
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("README.md does not document %s", name)
		}
	}
}

func sourceEnvNames(t *testing.T, root string) map[string]bool {
	names := map[string]bool{}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			for _, m := range envName.FindAllStringSubmatch(readText(t, p), -1) {
				names[m[1]] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(names) < 40 {
		t.Fatalf("found only %d variable names; the pattern no longer matches the sources", len(names))
	}
	return names
}

func readText(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
