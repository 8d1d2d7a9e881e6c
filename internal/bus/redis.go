package bus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the shared bus of several instances: Redis pub/sub carries each
// message to every instance, which hands it to its local subscribers. One
// Redis subscription per topic per instance, however many local subscribers.
type Redis struct {
	client *redis.Client
	ps     *redis.PubSub
	local  *Memory
	prefix string

	mu   sync.Mutex
	refs map[string]int
	done chan struct{}
}

// NewRedis connects lazily to the redis:// URL: the service starts while
// Redis is down, Healthy reports it, and go-redis reconnects (and
// resubscribes) once Redis is back.
func NewRedis(url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("CORE_BUS_URL: %w", err)
	}
	opts.DialTimeout = 2 * time.Second
	opts.MaxRetries = 1
	c := redis.NewClient(opts)
	r := &Redis{client: c, local: NewMemory(), prefix: "coreportal:", refs: map[string]int{}, done: make(chan struct{})}
	r.ps = c.Subscribe(context.Background())
	go r.loop()
	return r, nil
}

func (r *Redis) loop() {
	defer close(r.done)
	ch := r.ps.Channel(redis.WithChannelSize(1024), redis.WithChannelHealthCheckInterval(10*time.Second))
	for m := range ch {
		r.local.Deliver(m.Channel[len(r.prefix):], []byte(m.Payload))
	}
}

// Publish sends payload to every instance (this one included, through Redis).
func (r *Redis) Publish(ctx context.Context, topic string, payload []byte) error {
	if err := r.client.Publish(ctx, r.prefix+topic, payload).Err(); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe delivers messages of topic until cancel is called.
func (r *Redis) Subscribe(topic string) (<-chan []byte, func()) {
	msgs, cancelLocal := r.local.Subscribe(topic)
	// the mutex also orders SUBSCRIBE and UNSUBSCRIBE of one topic
	r.mu.Lock()
	r.refs[topic]++
	if r.refs[topic] == 1 {
		if err := r.ps.Subscribe(context.Background(), r.prefix+topic); err != nil {
			// go-redis resubscribes every channel it knows on reconnect
			slog.Warn("bus subscribe", "topic", topic, "err", err)
		}
	}
	r.mu.Unlock()
	var once sync.Once
	return msgs, func() {
		once.Do(func() {
			cancelLocal()
			r.mu.Lock()
			defer r.mu.Unlock()
			r.refs[topic]--
			if r.refs[topic] == 0 {
				delete(r.refs, topic)
				_ = r.ps.Unsubscribe(context.Background(), r.prefix+topic)
			}
		})
	}
}

// Healthy pings Redis.
func (r *Redis) Healthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis bus unreachable: %w", err)
	}
	return nil
}

// Shared is true: messages reach other instances.
func (r *Redis) Shared() bool { return true }

// Close stops the subscription and the client.
func (r *Redis) Close() error {
	err := r.ps.Close()
	<-r.done
	if cerr := r.client.Close(); err == nil {
		err = cerr
	}
	return err
}
