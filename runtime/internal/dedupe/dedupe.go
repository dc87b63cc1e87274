// Package dedupe holds the ids of webhook deliveries: the interface runtime.DedupeStore
// names, and its implementation in memory, for runtime and runtime/webhook alike.
package dedupe

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultTTL is runtime.DefaultDedupeTTL.
const DefaultTTL = 76 * time.Hour

// DefaultIDs is runtime.DefaultDedupeIDs.
const DefaultIDs = 100_000

// ErrInProgress is runtime.ErrDeliveryInProgress.
var ErrInProgress = errors.New("webhook delivery still in progress")

// Store remembers the ids of webhook deliveries, so that a receiver processes each
// delivery once however often its sender repeats it. A receiver calls Reserve before its
// handler runs, then Complete when the handler succeeded or Release when it failed, so that
// the sender's next attempt runs it again.
//
// The methods are called concurrently. An error other than ErrInProgress is the
// store failing: the receiver answers 503 and the sender tries again later.
//
// A store shared by several processes (Redis, a SQL table) should bound how long a
// reservation stays in progress, shorter than ttl: a process that stopped in the middle of a
// delivery never calls Complete or Release, and its reservation would refuse the sender's
// retries until ttl ends. docs/client.md ("Receiving webhooks") shows one.
type Store interface {
	// Reserve claims id for the caller for ttl: (true, nil) when id is new, or its
	// reservation was released or has expired; (false, nil) when a delivery of id completed;
	// (false, ErrInProgress) while another is in progress.
	Reserve(ctx context.Context, id string, ttl time.Duration) (first bool, err error)
	// Complete records that the delivery of id was processed: Reserve reports it for the
	// rest of the ttl it was reserved for.
	Complete(ctx context.Context, id string) error
	// Release forgets id, so that the next Reserve of it is first again.
	Release(ctx context.Context, id string) error
}

// Memory is a Store in memory, bounded in the number of ids it holds: when
// it is full, a new id pushes out the oldest completed one, the delivery least likely to be
// sent again. Ids in progress are never pushed out; when every id held is in progress,
// Reserve fails, and the receiver answers 503. Inside a testing/synctest bubble its clock is
// the bubble's.
type Memory struct {
	max int

	mu    sync.Mutex
	ids   map[string]*list.Element // of *entry
	order list.List                // oldest reservation first
}

// entry is what Memory holds for one id.
type entry struct {
	id      string
	done    bool
	expires time.Time
}

// ErrFull is what a full Memory's Reserve returns when every id it
// holds is still in progress.
var ErrFull = errors.New("dedupe store full of deliveries in progress")

// NewMemory returns a Memory that holds at most maxIDs ids, or
// DefaultIDs when maxIDs is 0 or less.
func NewMemory(maxIDs int) *Memory {
	if maxIDs <= 0 {
		maxIDs = DefaultIDs
	}
	return &Memory{max: maxIDs, ids: map[string]*list.Element{}}
}

// Reserve implements Store.
func (s *Memory) Reserve(_ context.Context, id string, ttl time.Duration) (bool, error) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	if el, ok := s.ids[id]; ok {
		e := el.Value.(*entry)
		if now.Before(e.expires) {
			if e.done {
				return false, nil
			}
			return false, ErrInProgress
		}
		s.remove(el)
	}
	if len(s.ids) >= s.max && !s.pushOut() {
		return false, ErrFull
	}
	s.ids[id] = s.order.PushBack(&entry{id: id, expires: now.Add(ttl)})
	return true, nil
}

// Complete implements Store.
func (s *Memory) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.ids[id]; ok {
		el.Value.(*entry).done = true
	}
	return nil
}

// Release implements Store.
func (s *Memory) Release(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.ids[id]; ok {
		s.remove(el)
	}
	return nil
}

// Len returns the number of ids the store holds, expired ones included until a Reserve
// drops them.
func (s *Memory) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}

// expire drops the expired ids at the front of the order. With one ttl for every id the
// order is that of expiry; an id reserved for less than the one before it waits behind it,
// and is dropped when looked up or pushed out.
func (s *Memory) expire(now time.Time) {
	for el := s.order.Front(); el != nil; el = s.order.Front() {
		if now.Before(el.Value.(*entry).expires) {
			return
		}
		s.remove(el)
	}
}

// pushOut drops the oldest completed id and reports whether there was one.
func (s *Memory) pushOut() bool {
	for el := s.order.Front(); el != nil; el = el.Next() {
		if el.Value.(*entry).done {
			s.remove(el)
			return true
		}
	}
	return false
}

func (s *Memory) remove(el *list.Element) {
	delete(s.ids, el.Value.(*entry).id)
	s.order.Remove(el)
}
