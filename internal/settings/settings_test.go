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
