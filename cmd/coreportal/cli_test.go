package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"coreportal/internal/fault"
	"coreportal/internal/licence"
)

func TestLicenceWarningText(t *testing.T) {
	exp := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		st   licence.LicenseStatus
		want string
	}{
		{licence.LicenseStatus{Mode: "trial", Valid: true, DaysRemaining: 3, ExpiresAt: exp}, "trial licence expires in 3 days (2026-12-01T00:00:00Z)"},
		{licence.LicenseStatus{Mode: "licensed", Valid: true, DaysRemaining: 1, ExpiresAt: exp}, "licence expires in 1 day "},
		{licence.LicenseStatus{Mode: "licensed", Valid: true, DaysRemaining: 7, ExpiresAt: exp}, "expires in 7 days"},
		{licence.LicenseStatus{Mode: "licensed", Valid: true, DaysRemaining: 8, ExpiresAt: exp}, ""},
		{licence.LicenseStatus{Mode: "expired", Valid: false, DaysRemaining: 0, ExpiresAt: exp}, ""},
	} {
		got := licenceWarningText(c.st)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q", c.st, got)
		}
	}
}

func TestOneLine(t *testing.T) {
	wrapped := fmt.Errorf("restore x.tar: %w", fault.Validation("file", "the archive is damaged"))
	if got := oneLine(wrapped); got != "restore x.tar: the archive is damaged" {
		t.Errorf("fault: %q", got)
	}
	if got := oneLine(errors.Join(errors.New("CORE_ADDR: bad"), errors.New("CORE_LOG_LEVEL: bad"))); got != "CORE_ADDR: bad; CORE_LOG_LEVEL: bad" {
		t.Errorf("joined: %q", got)
	}
}

func TestFindCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		name string
		rest int
	}{
		{[]string{"serve", "--addr", ":1"}, "serve", 2},
		{[]string{"user", "disable", "--login", "x"}, "user disable", 2},
		{[]string{"licence", "status"}, "license status", 0},
		{[]string{"user", "-h"}, "user", 1},
	} {
		cmd, rest, err := findCommand(c.args)
		if err != nil || cmd.name != c.name || len(rest) != c.rest {
			t.Errorf("%v: %v %v %v", c.args, cmd, rest, err)
		}
	}
	for _, args := range [][]string{{"user"}, {"user", "frob"}, {"frob"}} {
		var ee *exitError
		if _, _, err := findCommand(args); !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: %v", args, err)
		}
	}
}
