package backup

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirResolvesOnceAgainstTheDataFolder(t *testing.T) {
	cwd, _ := os.Getwd()
	s := New(nil, nil, nil, "data", Hooks{})
	want := filepath.Join(cwd, "data", "backups")
	for _, p := range []string{"backups", filepath.Join(cwd, "data", "backups"), filepath.Join(cwd, "data", "backups") + "/"} {
		if got := s.Dir(BackupSettings{Path: p}); got != want {
			t.Errorf("Dir(%q) = %q, want %q", p, got, want)
		}
	}
}
