package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
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
	brk  *breaker
	gaps atomic.Uint64
	// probing is set while a background probe watches for Redis to answer
	probing atomic.Bool
	closed  chan struct{}
}

// ProbeInterval is how often, while the breaker is open, a background PING
// checks whether Redis answers again: the breaker closes within about this
// long of Redis coming back, however long the outage and its back-off were,
// so that events held meanwhile are published at once.
var ProbeInterval = 500 * time.Millisecond

// NewRedis connects lazily to the redis:// URL: the service starts while
// Redis is down, Healthy reports it, and go-redis reconnects (and
// resubscribes) once Redis is back.
func NewRedis(url string) (*Redis, error) {
	quietRedis.Do(func() { redis.SetLogger(debugLogger{}) })
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("CORE_BUS_URL: %w", err)
	}
	opts.DialTimeout = 2 * time.Second
	opts.MaxRetries = 1
	c := redis.NewClient(opts)
	r := &Redis{client: c, local: NewMemory(), prefix: "coreportal:", refs: map[string]int{}, done: make(chan struct{}),
		closed: make(chan struct{}), brk: &breaker{name: "redis bus", now: time.Now}}
	r.ps = c.Subscribe(context.Background())
	go r.loop()
	return r, nil
}

func (r *Redis) loop() {
	defer close(r.done)
	lost := false
	for {
		msg, err := r.ps.ReceiveTimeout(context.Background(), 10*time.Second)
		if err != nil {
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// quiet: a PING finds a connection that died without a word
				_ = r.ps.Ping(context.Background())
				continue
			}
			// the connection broke: messages published until the next
			// subscription confirmation are missed (Gaps counts them)
			lost = true
			time.Sleep(100 * time.Millisecond)
			continue
		}
		switch m := msg.(type) {
		case *redis.Message:
			r.local.Deliver(m.Channel[len(r.prefix):], []byte(m.Payload))
		case *redis.Subscription:
			if lost && m.Kind == "subscribe" {
				lost = false
				r.gaps.Add(1)
			}
		}
	}
}

// Gaps counts how often the subscription was lost and re-established
// (messages published in between did not arrive here) plus the messages a
// too slow local subscriber dropped. A consumer that sees it change tells
// its own clients to catch up (live: a resync event).
func (r *Redis) Gaps() uint64 { return r.gaps.Load() + r.local.Gaps() }

// publishTimeout bounds one PUBLISH: callers must never wait on a dead Redis.
const publishTimeout = time.Second

// Publish sends payload to every instance (this one included, through
// Redis). While Redis is unreachable it fails at once with ErrUnavailable
// (circuit breaker), except for one probe per back-off period.
func (r *Redis) Publish(ctx context.Context, topic string, payload []byte) error {
	if !r.brk.allow() {
		return fmt.Errorf("publish %s: %w", topic, ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	err := r.client.Publish(ctx, r.prefix+topic, payload).Err()
	r.record(err)
	if err != nil {
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
	err := r.client.Ping(ctx).Err()
	r.record(err)
	if err != nil {
		return fmt.Errorf("redis bus unreachable: %w", err)
	}
	return nil
}

// record reports a call's outcome to the breaker and, when it opens, starts
// the background probe that closes it again.
func (r *Redis) record(err error) {
	r.brk.result(err)
	if err != nil && r.brk.isOpen() && r.probing.CompareAndSwap(false, true) {
		go r.probe()
	}
}

// probe PINGs Redis every ProbeInterval while the breaker is open and
// closes it on the first answer. An outage starting while it stops is
// watched by the same goroutine.
func (r *Redis) probe() {
	for {
		r.probeOutage()
		r.probing.Store(false)
		if !r.brk.isOpen() || !r.probing.CompareAndSwap(false, true) {
			return
		}
	}
}

func (r *Redis) probeOutage() {
	t := time.NewTicker(ProbeInterval)
	defer t.Stop()
	for r.brk.isOpen() {
		select {
		case <-r.closed:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
		err := r.client.Ping(ctx).Err()
		cancel()
		if err == nil {
			r.brk.result(nil)
		}
	}
}

// Shared is true: messages reach other instances.
func (r *Redis) Shared() bool { return true }

// Close stops the subscription and the client.
func (r *Redis) Close() error {
	close(r.closed)
	err := r.ps.Close()
	<-r.done
	if cerr := r.client.Close(); err == nil {
		err = cerr
	}
	return err
}

var quietRedis sync.Once

// debugLogger sends go-redis's own messages (a line per failed reconnect of
// the subscription while Redis is down) to the process log at DEBUG: the
// breaker logs an outage once.
type debugLogger struct{}

func (debugLogger) Printf(ctx context.Context, format string, v ...any) {
	slog.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}
