package events

import "testing"

func TestCanonicalUUID(t *testing.T) {
	const id = "0b9e2c1a-6f1d-4c3e-9a8b-7d6e5f4a3b2c"
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{id, id, true},
		{"0B9E2C1A-6F1D-4C3E-9A8B-7D6E5F4A3B2C", id, true},
		{"urn:uuid:" + id, "", false},
		{"{" + id + "}", "", false},
		{"0b9e2c1a6f1d4c3e9a8b7d6e5f4a3b2c", "", false},
		{"0b9e2c1a-6f1d-4c3e-9a8b-7d6e5f4a3b2g", "", false},
		{"", "", false},
		{" " + id[1:], "", false},
	} {
		got, ok := canonicalUUID(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("canonicalUUID(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
