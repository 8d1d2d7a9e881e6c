package lists

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"coreportal/internal/bus"
	"coreportal/internal/field"
	"coreportal/internal/store"
)

// schemaCache keeps lists with their fields so that item requests do not
// read the metadata twice each time. Changes drop the entry after commit on
// this instance and, through the bus, on the others; entries also expire
// after schemaTTL in case a bus message is lost. Readers get deep copies, so
// a request may change its copy freely.
type schemaCache struct {
	mu  sync.Mutex
	m   map[string]cachedSchema
	bus bus.Bus
	now func() time.Time
	// gen counts invalidations: a snapshot read before one is not stored
	gen uint64
}

type cachedSchema struct {
	sc *schema
	at time.Time
}

const (
	schemaTTL     = 30 * time.Second
	schemaTopic   = "lists.schema"
	maxSchemaList = 10_000
)

func (c *schemaCache) get(id string) (*schema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	if !ok || c.now().Sub(e.at) > schemaTTL {
		return nil, false
	}
	return e.sc.clone(), true
}

// generation is read before a schema is loaded and passed to put.
func (c *schemaCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps sc unless some schema was invalidated since gen was read (the
// snapshot may predate that change).
func (c *schemaCache) put(sc *schema, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= maxSchemaList {
		c.m = map[string]cachedSchema{}
	}
	c.m[sc.list.ID] = cachedSchema{sc: sc.clone(), at: c.now()}
}

func (c *schemaCache) drop(id string) {
	c.mu.Lock()
	delete(c.m, id)
	c.gen++
	c.mu.Unlock()
}

func (sc *schema) clone() *schema {
	l := *sc.list
	fields := make([]*field.Def, len(sc.fields))
	for i, f := range sc.fields {
		d := *f
		d.Settings.Choices = append([]string(nil), f.Settings.Choices...)
		fields[i] = &d
	}
	return newSchema(&l, fields)
}

// UseBus shares schema invalidations with other instances (call Listen in a loop).
func (s *Service) UseBus(b bus.Bus) { s.schemas.bus = b }

// Listen drops cached schemas that other instances changed, until ctx ends.
func (s *Service) Listen(ctx context.Context) {
	if s.schemas.bus == nil {
		return
	}
	msgs, cancel := s.schemas.bus.Subscribe(schemaTopic)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-msgs:
			s.schemas.drop(string(id))
			s.adhoc.forget(tableName(string(id)))
		}
	}
}

// schemaChanged drops a list's cached schema now and after commit, here and elsewhere.
func (s *Service) schemaChanged(ctx context.Context, listID string) {
	s.schemas.drop(listID)
	s.adhoc.forget(tableName(listID))
	store.AfterCommit(ctx, func() {
		s.schemas.drop(listID)
		s.adhoc.forget(tableName(listID))
		if s.schemas.bus != nil {
			if err := s.schemas.bus.Publish(context.WithoutCancel(ctx), schemaTopic, []byte(listID)); err != nil {
				slog.WarnContext(ctx, "publish list schema change", "err", err)
			}
		}
	})
}
