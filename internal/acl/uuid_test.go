package acl

import "testing"

func TestCanonicalUUID(t *testing.T) {
	const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{id, id, true},
		{"0F8FAD5B-D9CB-469F-A165-70867728950E", id, true},
		{"urn:uuid:" + id, "", false},
		{"{" + id + "}", "", false},
		{"0f8fad5bd9cb469fa16570867728950e", "", false},
		{"", "", false},
		{"0f8fad5b-d9cb-469f-a165-70867728950g", "", false},
		{" " + id[1:], "", false},
	} {
		got, ok := CanonicalUUID(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("CanonicalUUID(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if _, err := CanonicalField("parentId", "urn:uuid:"+id); err == nil {
		t.Fatal("urn form accepted")
	}
	if got, err := CanonicalField("parentId", ""); got != "" || err != nil {
		t.Fatalf("absent id: %q %v", got, err)
	}
}
