package search

import (
	"context"
	"fmt"

	"coreportal/internal/acl"
)

// link is what an object of a chain contributes to it: its parent and
// whether it inherits.
type link struct {
	parent   string
	inherits bool
}

// maxChainReads bounds how often chains reads the chains again because an
// object on them changed before it was locked.
const maxChainReads = 16

// chains fills Boundary and Scopes of the entries below a container (items,
// files, folders) from the access-control registry, in one query for all of
// them: the chain of an entry runs up through folders and stops after the
// first isolated object or at the container, as the acl engine's does. An
// entry whose own object is missing is marked Unregistered.
//
// Rights changes and index writes commute. An inheritance change or a move
// (acl.SetInherits, acl.Move) updates the row of its object and then, in the
// same transaction, rescopes the entries depending on it. On PostgreSQL the
// objects of the chains read here (not the container: its rights are
// applied at query time) are locked FOR SHARE until the writer's
// transaction ends and read again if one changed before the lock was held.
// So a rights change waits for every transaction that wrote an entry from a
// chain through its object, and its rescope then sees those entries; a
// writer that comes later waits for the change and reads its result. SQLite
// runs one write transaction at a time: the read is current by itself.
func (s *indexStore) chains(ctx context.Context, es []*entry) error {
	for range maxChainReads {
		walked, err := s.readChains(ctx, es)
		if err != nil {
			return err
		}
		if len(walked) == 0 {
			return nil
		}
		s.hook(ctx, "chain")
		if !s.pg() {
			return nil
		}
		same, err := s.lockChains(ctx, walked)
		if err != nil || same {
			return err
		}
	}
	return fmt.Errorf("access chains: objects changed %d times while their chains were read", maxChainReads)
}

// readChains computes the chains of es and returns the objects they walk
// through (the container left out).
func (s *indexStore) readChains(ctx context.Context, es []*entry) (map[string]link, error) {
	var ids []string
	byID := map[string]*entry{}
	for _, e := range es {
		e.Boundary, e.Scopes, e.Unregistered = "", nil, false
		if e.ID != e.ContainerID && !e.Created {
			ids = append(ids, e.ID)
			byID[e.ID] = e
			e.Unregistered = true // until its row is read
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	chains, err := s.acl.Chains(ctx, ids, acl.ListItem, acl.File)
	if err != nil {
		return nil, err
	}
	walked := map[string]link{}
	for start, e := range byID {
		for _, l := range chains[start] {
			if l.ID == start {
				e.Unregistered = false
			} else {
				if l.Type != acl.ListItem && l.Type != acl.File {
					break // the container: the rest is decided at query time
				}
				e.Scopes = append(e.Scopes, l.ID)
			}
			walked[l.ID] = link{parent: l.Parent, inherits: l.Inherits}
			if !l.Inherits {
				e.Boundary = l.ID
				break
			}
		}
	}
	return walked, nil
}

// lockChains locks the objects of chains FOR SHARE (PostgreSQL) and reports
// whether they are still as they were read.
func (s *indexStore) lockChains(ctx context.Context, walked map[string]link) (bool, error) {
	ids := make([]string, 0, len(walked))
	for id := range walked {
		ids = append(ids, id)
	}
	now, err := s.acl.LockLinks(ctx, ids)
	if err != nil {
		return false, err
	}
	for id, l := range now {
		if walked[id] != (link{parent: l.Parent, inherits: l.Inherits}) {
			return false, nil
		}
	}
	return len(now) == len(walked), nil
}

// hook runs the test hook at a point of a race (nothing in production).
func (s *indexStore) hook(ctx context.Context, point string) {
	if s.raceHook != nil {
		s.raceHook(ctx, point)
	}
}

// registered splits entries into those that may be written and the ids of
// those whose resource is not registered (any more): a text extraction or a
// re-index that read a file before it was purged must not bring its entry
// back.
func registered(es []*entry) ([]*entry, []string) {
	var gone []string
	keep := es[:0:0]
	for _, e := range es {
		if e.Unregistered {
			gone = append(gone, e.ID)
		} else {
			keep = append(keep, e)
		}
	}
	return keep, gone
}
