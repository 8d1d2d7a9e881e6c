package privfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestModesWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	if err := MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	f, err := Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	loose := filepath.Join(dir, "loose")
	_ = os.WriteFile(loose, nil, 0o666)
	if err := Restrict(loose); err != nil {
		t.Fatal(err)
	}
	if err := Restrict(filepath.Join(dir, "missing")); err != nil {
		t.Fatalf("missing file: %v", err)
	}
	shared := filepath.Join(root, "shared")
	_ = os.Mkdir(shared, 0o755)
	if err := MkdirNew(shared); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(root, "a"): 0o700, filepath.Join(dir, "f"): 0o600, loose: 0o600, shared: 0o755} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v, want %v (%v)", p, st.Mode().Perm(), want, err)
		}
	}
}
