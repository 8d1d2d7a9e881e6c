package lists

import (
	"context"
	"encoding/json"
	"io"
	"time"
)

// BinEntry is what the lists service puts into the recycle bin.
type BinEntry struct {
	NodeID    string
	Kind      string // "list" or "list_item"
	Title     string
	DeletedBy string
	ScopeID   string // the list, for entries of kind list_item
	Payload   json.RawMessage
	// ResourceID is the deleted resource (its access-control id); the bin
	// lists the entry only to callers who can view it as it was.
	ResourceID string
}

// Bin is the recycle bin as the lists service uses it (adapted to internal/recyclebin by the wiring).
type Bin interface {
	Add(ctx context.Context, e BinEntry) (string, error)
}

// Blobs is the blob store as attachments use it.
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
}

// UseBin connects the recycle bin.
func (s *Service) UseBin(b Bin) { s.bin = b }

// UseBlobs connects the blob store and sets the attachment size limit.
func (s *Service) UseBlobs(b Blobs, maxUpload int64) {
	s.blobs = b
	if maxUpload > 0 {
		s.maxUpload = maxUpload
	}
}

// OnItemSaved sets the live-event publisher called after PATCH and quick-edit commits.
func (s *Service) OnItemSaved(fn func(ctx context.Context, listID string, number int64, item any)) {
	s.publish = fn
}

// SlowSaves delays every item create and update by d before its transaction
// starts (test hook CORE_TEST_SAVE_DELAY: it makes requests run long on
// purpose, to prove that long requests are not cancelled).
func (s *Service) SlowSaves(d time.Duration) { s.saveDelay = d }

// pause waits the test delay, if any, or until ctx ends.
func (s *Service) pause(ctx context.Context) error {
	if s.saveDelay <= 0 {
		return nil
	}
	t := time.NewTimer(s.saveDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
