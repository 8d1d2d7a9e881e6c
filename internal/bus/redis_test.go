package bus

import (
	"context"
	"testing"
	"time"
)

const redisURL = "redis://127.0.0.1:6379/0"

func recv(t *testing.T, ch <-chan []byte) string {
	t.Helper()
	select {
	case m := <-ch:
		return string(m)
	case <-time.After(3 * time.Second):
		t.Fatal("no message")
	}
	return ""
}

// Two instances, each with its own Redis connection: a message published on
// one reaches subscribers of the other.
func TestRedisCarriesMessagesBetweenInstances(t *testing.T) {
	a, err := NewRedis(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Healthy(context.Background()); err != nil {
		t.Fatalf("redis at 127.0.0.1:6379: %v", err)
	}
	if !a.Shared() {
		t.Fatal("redis bus not shared")
	}
	topic := "test." + time.Now().Format("150405.000000000")
	m1, c1 := b.Subscribe(topic)
	m2, c2 := b.Subscribe(topic)
	time.Sleep(100 * time.Millisecond) // SUBSCRIBE reaches Redis
	if err := a.Publish(context.Background(), topic, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if recv(t, m1) != "hello" || recv(t, m2) != "hello" {
		t.Fatal("wrong payload")
	}
	c1()
	c2()
	m3, c3 := b.Subscribe(topic) // resubscribing after the last cancel works
	defer c3()
	time.Sleep(100 * time.Millisecond)
	_ = a.Publish(context.Background(), topic, []byte("again"))
	if recv(t, m3) != "again" {
		t.Fatal("wrong payload after resubscribe")
	}
}

func TestRedisUnreachableIsUnhealthy(t *testing.T) {
	r, err := NewRedis("redis://127.0.0.1:1/0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Healthy(context.Background()); err == nil {
		t.Fatal("unreachable redis reported healthy")
	}
	if err := r.Publish(context.Background(), "x", []byte("y")); err == nil {
		t.Fatal("publish to unreachable redis succeeded")
	}
	if _, err := NewRedis("http://nope"); err == nil {
		t.Fatal("bad URL accepted")
	}
}
