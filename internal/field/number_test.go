package field

import (
	"context"
	"encoding/json"
	"testing"
)

func TestToNumber(t *testing.T) {
	id := &Def{ID: "id", InternalName: "id", Title: "ID", Type: Number, ColName: "id"}
	amount := &Def{ID: "f", InternalName: "amount", Title: "Amount", Type: Number, Col: 3}
	cases := []struct {
		name string
		f    *Def
		in   any
		want any // nil = refused
	}{
		{"item number", id, float64(42), int64(42)},
		{"item number as text", id, " 7 ", int64(7)},
		{"negative item number", id, float64(-3), int64(-3)},
		{"fraction of an item number", id, 1.5, nil},
		{"item number beyond int64", id, 1e19, nil},
		{"max int64 rounds up to 2^63", id, "9223372036854775807", nil},
		{"huge text", id, "99999999999999999999", nil},
		{"1e308", id, 1e308, nil},
		{"not a number", id, "abc", nil},
		{"amount keeps fractions", amount, 1.5, 1.5},
		{"amount keeps big values", amount, 1e30, 1e30},
		{"amount refuses NaN text", amount, "NaN", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := toNumber(c.f)(c.in)
			if c.want == nil {
				if err == nil {
					t.Fatalf("accepted as %v", got)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %v (%T), %v; want %v", got, got, err, c.want)
			}
		})
	}
}

// TestNegativeZero: -0 is stored as 0, so saving it over 0 changes nothing
// (attack finding: it wrote a version with old 0, new 0).
func TestNegativeZero(t *testing.T) {
	f := &Def{Type: Number, Title: "n"}
	for _, raw := range []string{`-0`, `-0.0`, `"-0"`} {
		v, err := MustOf(f).Normalize(context.Background(), f, json.RawMessage(raw), nil)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(v); string(b) != "0" {
			t.Fatalf("%s normalised to %s", raw, b)
		}
	}
}
