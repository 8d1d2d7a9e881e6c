package settings

import (
	"context"
	"sync"
	"testing"

	"coreportal/internal/store"
	"coreportal/internal/store/storetest"
)

func TestSettings(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db)
		if _, ok, err := s.Get(ctx, "missing"); ok || err != nil {
			t.Fatalf("missing: ok=%v err=%v", ok, err)
		}
		if err := s.Set(ctx, "k", "v1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Set(ctx, "k", "v2"); err != nil {
			t.Fatal(err)
		}
		if v, ok, _ := s.Get(ctx, "k"); !ok || v != "v2" {
			t.Fatalf("upsert: %q", v)
		}
		// Concurrent Init calls agree on one value.
		var wg sync.WaitGroup
		got := make([]string, 8)
		for i := range got {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				v, err := s.Init(ctx, "once", func() string { return string(rune('a' + i)) })
				if err != nil {
					t.Error(err)
				}
				got[i] = v
			}(i)
		}
		wg.Wait()
		for _, v := range got {
			if v != got[0] {
				t.Fatalf("Init disagreed: %v", got)
			}
		}
	})
}

// Swap is a compare-and-set: only the holder of the old value wins.
func TestSwap(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := New(db)
		for _, step := range []struct {
			old, next string
			won       bool
		}{
			{"", "a", true},   // missing key
			{"", "b", false},  // taken
			{"x", "b", false}, // wrong old value
			{"a", "", true},   // released
			{"", "c", true},   // an empty value is free again
		} {
			if won, err := s.Swap(ctx, "lease", step.old, step.next); err != nil || won != step.won {
				t.Fatalf("Swap(%q, %q) = %v, %v", step.old, step.next, won, err)
			}
		}
		if v, _, _ := s.Get(ctx, "lease"); v != "c" {
			t.Fatalf("value %q", v)
		}
	})
}
