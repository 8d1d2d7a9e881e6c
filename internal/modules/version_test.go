package modules

import "testing"

func TestParseRequirementAndAllows(t *testing.T) {
	cases := []struct {
		in      string
		ok      bool
		version string
		allowed bool
	}{
		{"acme.base", true, "0.0.1", true},
		{"acme.base@>=1.0.0", true, "1.0.0", true},
		{"acme.base@>=1.0.0", true, "0.9.9", false},
		{"acme.base@>1.0.0", true, "1.0.0", false},
		{"acme.base@>1.0.0", true, "1.0.1", true},
		{"acme.base@=1.2.0", true, "1.2.0", true},
		{"acme.base@1.2.0", true, "1.2.1", false},
		{"acme.base@<=2.0.0", true, "2.0.0", true},
		{"acme.base@<2.0.0", true, "2.0.0", false},
		{"acme.base@<2.0.0", true, "2.0.0-rc.1", true},
		{"acme.base@>=1.0.0", true, "1.10.0", true}, // numeric, not text, order
		{"acme.base@>=1.0.0", true, "garbage", false},
		{"acme.base@>=1.0", false, "", false},
		{"acme.base@~1.0.0", false, "", false},
		{"Acme.Base", false, "", false},
		{"acme..base", false, "", false},
		{"", false, "", false},
		{"acme.base@", false, "", false},
	}
	for _, c := range cases {
		r, err := ParseRequirement(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseRequirement(%q) err=%v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if c.ok && r.Allows(c.version) != c.allowed {
			t.Errorf("%q allows %q = %v, want %v", c.in, c.version, !c.allowed, c.allowed)
		}
	}
}

func TestValidVersionAndKey(t *testing.T) {
	for v, ok := range map[string]bool{"1.0.0": true, "0.1.0-beta.2+b.5": true, "1.0": false, "v1.0.0": false, "01.0.0": false, "": false} {
		if ValidVersion(v) != ok {
			t.Errorf("ValidVersion(%q) != %v", v, ok)
		}
	}
	for k, ok := range map[string]bool{"vendor.comms.chat": true, "acme": true, "acme.": false, ".acme": false, "ac me": false, "acme.1x": false} {
		if ValidKey(k) != ok {
			t.Errorf("ValidKey(%q) != %v", k, ok)
		}
	}
	if CompareVersions("1.2.0", "1.10.0") >= 0 || CompareVersions("2.0.0", "2.0.0+build") != 0 {
		t.Error("CompareVersions is not semantic")
	}
}
