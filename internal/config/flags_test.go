package config

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestLoadFlags: a command's own flags and the configuration flags share one
// flag set, in any order; -h is reported as flag.ErrHelp; a stray argument
// is refused.
func TestLoadFlags(t *testing.T) {
	env := map[string]string{"CORE_DATA_DIR": "/env/data"}
	getenv := func(k string) string { return env[k] }
	newFS := func() (*flag.FlagSet, *string) {
		fs := flag.NewFlagSet("user disable", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return fs, fs.String("login", "", "login")
	}

	fs, login := newFS()
	c, err := LoadFlags(getenv, fs, []string{"--data-dir", "/srv/portal", "--login", "jane", "--database-url", "postgres://db/portal"})
	if err != nil || *login != "jane" || c.DataDir != "/srv/portal" || c.DatabaseURL != "postgres://db/portal" {
		t.Fatalf("got %v %q %+v", err, *login, c)
	}
	fs, _ = newFS()
	if c, err := LoadFlags(getenv, fs, nil); err != nil || c.DataDir != "/env/data" {
		t.Fatalf("environment default: %v %q", err, c.DataDir)
	}
	fs, _ = newFS()
	if _, err := LoadFlags(getenv, fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	fs, _ = newFS()
	if _, err := LoadFlags(getenv, fs, []string{"--login", "jane", "extra"}); err == nil || !strings.Contains(err.Error(), `"extra"`) {
		t.Fatalf("stray argument: %v", err)
	}
	fs, _ = newFS()
	if _, err := LoadFlags(getenv, fs, []string{"--nope"}); err == nil || !strings.HasPrefix(err.Error(), "flags: ") {
		t.Fatalf("unknown flag: %v", err)
	}
	for _, name := range FlagNames {
		if fs.Lookup(name) == nil {
			t.Fatalf("configuration flag %s not defined", name)
		}
	}
}
