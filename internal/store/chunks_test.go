package store

import (
	"reflect"
	"testing"
)

func TestUniqueChunks(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []int64
		n    int
		want [][]int64
	}{
		{"none", nil, 3, nil},
		{"one chunk", []int64{1, 2}, 3, [][]int64{{1, 2}}},
		{"exact", []int64{1, 2, 3}, 3, [][]int64{{1, 2, 3}}},
		{"split", []int64{1, 2, 3, 4}, 3, [][]int64{{1, 2, 3}, {4}}},
		{"repeats dropped, first place kept", []int64{5, 1, 5, 2, 1, 3}, 2, [][]int64{{5, 1}, {2, 3}}},
		{"all the same", []int64{7, 7, 7}, 1, [][]int64{{7}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := UniqueChunks(c.in, c.n); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("UniqueChunks(%v, %d) = %v, want %v", c.in, c.n, got, c.want)
			}
		})
	}
}
