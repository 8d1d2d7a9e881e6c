package backup

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// A value dumped by one dialect must come back in the kind the target column takes.
func TestValueRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	cases := []struct {
		name   string
		in     any
		source string
		target string
		want   any
	}{
		{"sqlite boolean into postgres", int64(1), "bool", "bool", true},
		{"postgres boolean into sqlite", true, "bool", "bool", true},
		{"boolean into an integer column", false, "bool", "int", int64(0)},
		{"big integer keeps precision", int64(9007199254740993), "int", "int", int64(9007199254740993)},
		{"float", 2.5, "float", "float", 2.5},
		{"timestamp", at, "time", "time", at},
		{"timestamp into text", at, "time", "text", at.Format(time.RFC3339Nano)},
		{"jsonb bytes become text", []byte(`{"a":1}`), "json", "json", `{"a":1}`},
		{"bytea", []byte{0, 1, 2}, "bytes", "bytes", []byte{0, 1, 2}},
		{"uuid bytes", [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, "text", "text", "12345678-9abc-def0-0102-030405060708"},
		{"null", nil, "text", "text", nil},
		// list item tables: guid, created_by, updated_by are 16-byte BLOBs on
		// SQLite and uuid on PostgreSQL, created_at/updated_at integers
		{"uuid blob stays a blob", []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, "bytes", "bytes", []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"uuid blob into postgres uuid", []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, "bytes", "text", "12345678-9abc-def0-0102-030405060708"},
		{"postgres uuid into a sqlite blob", [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}, "text", "bytes", []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"millisecond stamp", int64(1795000000123), "int", "int", int64(1795000000123)},
		{"text stamp of an older archive into a millisecond column", "2026-11-18T08:26:40.123Z", "text", "int", int64(1794990400123)},
		{"text uuid of an older archive into a sqlite blob", "12345678-9abc-def0-0102-030405060708", "text", "bytes", []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := json.Marshal(encodeValue(c.in, c.source))
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			got := decodeValue(v, c.target)
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(c.want)
			if string(gj) != string(wj) {
				t.Fatalf("got %#v (%s), want %#v (%s)", got, gj, c.want, wj)
			}
			if tt, ok := c.want.(time.Time); ok && !got.(time.Time).Equal(tt) {
				t.Fatalf("time %v, want %v", got, tt)
			}
		})
	}
}
