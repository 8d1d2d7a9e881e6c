// Package bus carries live events between the parts of one process or, with
// Redis, between every instance of the service.
package bus

import (
	"context"
	"sync"
	"sync/atomic"
)

// Bus is a publish/subscribe channel. Delivery is best effort: a slow
// subscriber loses messages rather than blocking publishers.
type Bus interface {
	Publish(ctx context.Context, topic string, payload []byte) error
	// Subscribe delivers messages of topic until cancel is called.
	Subscribe(topic string) (msgs <-chan []byte, cancel func())
	// Healthy reports whether the shared backend is reachable.
	Healthy(ctx context.Context) error
	// Shared is true when messages reach other instances.
	Shared() bool
	Close() error
}

// Memory is the in-process bus of a single instance.
type Memory struct {
	mu    sync.RWMutex
	subs  map[string]map[*sub]struct{}
	drops atomic.Uint64
}

type sub struct{ ch chan []byte }

// NewMemory returns an in-process bus.
func NewMemory() *Memory { return &Memory{subs: map[string]map[*sub]struct{}{}} }

// Buffer is the per-subscriber queue length.
const Buffer = 64

func (m *Memory) Publish(_ context.Context, topic string, payload []byte) error {
	m.Deliver(topic, payload)
	return nil
}

// Deliver hands payload to local subscribers (used by shared buses too).
func (m *Memory) Deliver(topic string, payload []byte) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for s := range m.subs[topic] {
		select {
		case s.ch <- payload:
		default: // subscriber too slow: drop rather than block everyone
			m.drops.Add(1)
		}
	}
}

func (m *Memory) Subscribe(topic string) (<-chan []byte, func()) {
	s := &sub{ch: make(chan []byte, Buffer)}
	m.mu.Lock()
	if m.subs[topic] == nil {
		m.subs[topic] = map[*sub]struct{}{}
	}
	m.subs[topic][s] = struct{}{}
	m.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			m.mu.Lock()
			delete(m.subs[topic], s)
			if len(m.subs[topic]) == 0 {
				delete(m.subs, topic)
			}
			m.mu.Unlock()
		})
	}
}

// Gaps counts messages dropped because a subscriber was too slow: a
// consumer that sees it change tells its own clients to catch up.
func (m *Memory) Gaps() uint64 { return m.drops.Load() }

// Topics returns the number of topics with subscribers.
func (m *Memory) Topics() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.subs)
}

func (m *Memory) Healthy(context.Context) error { return nil }
func (m *Memory) Shared() bool                  { return false }
func (m *Memory) Close() error                  { return nil }
