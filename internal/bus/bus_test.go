package bus

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestMemoryDeliversToEverySubscriberOfTopic(t *testing.T) {
	b := NewMemory()
	a, cancelA := b.Subscribe("t")
	c, cancelC := b.Subscribe("t")
	other, cancelO := b.Subscribe("u")
	defer cancelO()
	_ = b.Publish(context.Background(), "t", []byte("x"))
	for _, ch := range []<-chan []byte{a, c} {
		select {
		case m := <-ch:
			if string(m) != "x" {
				t.Fatalf("got %q", m)
			}
		case <-time.After(time.Second):
			t.Fatal("not delivered")
		}
	}
	select {
	case <-other:
		t.Fatal("delivered to another topic")
	default:
	}
	cancelA()
	cancelC()
	cancelC()
	if b.Topics() != 1 {
		t.Fatalf("topics left: %d", b.Topics())
	}
}

func TestMemorySlowSubscriberDoesNotBlock(t *testing.T) {
	b := NewMemory()
	_, cancel := b.Subscribe("t")
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < Buffer*4; j++ {
				_ = b.Publish(context.Background(), "t", []byte("x"))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("publish blocked on a slow subscriber")
	}
	if got, want := b.Gaps(), uint64(4*Buffer*4-Buffer); got != want {
		t.Fatalf("gaps %d, want %d (every dropped message counts)", got, want)
	}
}
