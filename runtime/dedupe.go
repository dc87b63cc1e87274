package runtime

import "github.com/retrygen/retrygen/runtime/internal/dedupe"

// A webhook sender repeats every delivery it did not see acknowledged: after a timeout, a
// deploy, a 500. A receiver that processes each delivery once keeps the ids it has seen in
// a DedupeStore, for as long as the sender may still repeat them.

// DefaultDedupeTTL is how long a webhook receiver remembers a delivery it processed: the
// sender's retry horizon. Standard Webhooks' example schedule ends 75 hours after the first
// attempt, and Stripe retries for up to three days; a shorter time (the 5-minute window of
// a signature's timestamp, say) lets a late retry run the handler again.
const DefaultDedupeTTL = dedupe.DefaultTTL

// DefaultDedupeIDs is how many delivery ids a MemoryDedupeStore holds unless told
// otherwise: about 16 MiB of memory (BenchmarkMemoryDedupeStore: 166 bytes an id).
const DefaultDedupeIDs = dedupe.DefaultIDs

// ErrDeliveryInProgress is what DedupeStore.Reserve returns, with first false, for an id
// whose delivery is still being processed: the receiver answers 409, so that the sender
// comes back once the first has finished.
var ErrDeliveryInProgress = dedupe.ErrInProgress

// ErrDedupeStoreFull is what a full MemoryDedupeStore's Reserve returns when every id it
// holds is still in progress: the receiver answers 503.
var ErrDedupeStoreFull = dedupe.ErrFull

// DedupeStore remembers the ids of webhook deliveries, so that a receiver processes each
// delivery once however often its sender repeats it. A receiver calls Reserve before its
// handler runs, then Complete when the handler succeeded or Release when it failed, so that
// the sender's next attempt runs it again.
//
//	Reserve(ctx, id, ttl) (first bool, err error)
//
// claims id for ttl: (true, nil) when id is new, or its reservation was released or has
// expired; (false, nil) when a delivery of id completed; (false, ErrDeliveryInProgress)
// while another is in progress.
//
//	Complete(ctx, id) error
//	Release(ctx, id) error
//
// Complete records that the delivery of id was processed, so that Reserve reports it for
// the rest of its ttl; Release forgets id, so that the next Reserve of it is first again.
//
// The methods are called concurrently. An error other than ErrDeliveryInProgress is the
// store failing: the receiver answers 503 and the sender tries again later. A store shared
// by several processes (Redis, a SQL table) should bound how long a reservation stays in
// progress, shorter than ttl: a process that stopped in the middle of a delivery never
// calls Complete or Release, and its reservation would refuse the sender's retries until
// ttl ends. docs/client.md ("Receiving webhooks") shows one.
type DedupeStore = dedupe.Store

// MemoryDedupeStore is a DedupeStore in memory, bounded in the number of ids it holds: when
// it is full, a new id pushes out the oldest completed one, the delivery least likely to be
// sent again. Ids in progress are never pushed out; when every id held is in progress,
// Reserve fails with ErrDedupeStoreFull. Inside a testing/synctest bubble its clock is the
// bubble's. Its Len method returns the number of ids it holds.
type MemoryDedupeStore = dedupe.Memory

// NewMemoryDedupeStore returns a MemoryDedupeStore that holds at most maxIDs ids, or
// DefaultDedupeIDs when maxIDs is 0 or less.
func NewMemoryDedupeStore(maxIDs int) *MemoryDedupeStore { return dedupe.NewMemory(maxIDs) }
