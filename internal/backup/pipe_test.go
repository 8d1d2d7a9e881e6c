package backup

import (
	"bytes"
	"errors"
	"testing"
)

type failAfter struct {
	n   int
	got bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		return 0, errors.New("disk full")
	}
	return f.got.Write(p)
}

func TestAsyncWriter(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*chunkSize/16+7) // several chunks and a tail
	for _, tc := range []struct {
		name   string
		writes [][]byte
		limit  int
		fail   bool
	}{
		{"nothing", nil, 1 << 30, false},
		{"small writes", [][]byte{[]byte("a"), []byte("bc"), []byte("def")}, 1 << 30, false},
		{"one write over several chunks", [][]byte{big}, 1 << 30, false},
		{"exactly one chunk", [][]byte{big[:chunkSize]}, 1 << 30, false},
		{"error of the target surfaces at Close", [][]byte{big, big}, chunkSize, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := &failAfter{n: tc.limit}
			w := newAsyncWriter(dst)
			var want []byte
			for _, p := range tc.writes {
				if _, err := w.Write(p); err != nil {
					t.Fatal(err)
				}
				want = append(want, p...)
			}
			err := w.Close()
			if tc.fail {
				if err == nil {
					t.Fatal("Close did not report the target's error")
				}
				if _, err := w.Write([]byte("x")); err == nil {
					t.Fatal("Write after a failure succeeded")
				}
				return
			}
			if err != nil || !bytes.Equal(dst.got.Bytes(), want) {
				t.Fatalf("err %v, %d bytes written, want %d", err, dst.got.Len(), len(want))
			}
		})
	}
}
