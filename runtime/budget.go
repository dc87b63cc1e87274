package runtime

import (
	"math"
	"sync"
	"time"
)

// Budget window: the budget counts the requests and retries of the last BudgetWindow, in
// budgetSlots slots.
const (
	BudgetWindow = 10 * time.Second
	budgetSlots  = 10
	budgetSlot   = BudgetWindow / budgetSlots
)

// Default budget: retries may add 10% to the requests of the last BudgetWindow, plus one
// retry per second so that a client with little traffic can still retry.
const (
	DefaultBudgetRatio         = 0.1
	DefaultBudgetMinRetriesSec = 1.0
)

// Budget caps the retries of all calls of one client to a share of their recent requests,
// so that in a total outage retries add about Ratio to the offered load instead of
// multiplying it by MaxAttempts.
//
// A retry is allowed when the retries of the last BudgetWindow, this one included, number at
// most ratio × the calls (first attempts) of that window plus minRetriesPerSecond × the
// window in seconds. Retries never fund further retries, and a first attempt is never
// refused. A nil *Budget allows every retry. It is safe for concurrent use.
//
// The methods take the current time explicitly, so that a simulation can drive a Budget in
// virtual time; Engine.Do passes its clock's time. A time earlier than one already seen
// counts as that one.
type Budget struct {
	ratio   float64
	reserve float64 // minRetriesPerSecond × the window in seconds

	mu      sync.Mutex
	started bool
	epoch   time.Time // the first time seen; slots count from it
	latest  int64     // the latest slot seen; time never runs back for the budget
	slots   [budgetSlots]budgetCount
}

type budgetCount struct {
	index    int64 // which slot of time this count is for
	requests int64
	retries  int64
}

// NewBudget returns a budget that allows retries up to ratio (0.1 = 10%) of recent calls
// plus minRetriesPerSecond. Negative or NaN arguments count as 0; NewBudget(0, 0) allows no
// retry at all. To turn the budget off, leave Engine.Budget nil.
func NewBudget(ratio float64, minRetriesPerSecond float64) *Budget {
	if !(ratio > 0) || math.IsInf(ratio, 0) {
		if math.IsInf(ratio, 1) {
			ratio = math.MaxFloat64
		} else {
			ratio = 0
		}
	}
	if !(minRetriesPerSecond > 0) {
		minRetriesPerSecond = 0
	}
	return &Budget{ratio: ratio, reserve: minRetriesPerSecond * BudgetWindow.Seconds()}
}

// DefaultBudget returns NewBudget(0.1, 1): retries up to 10% of recent calls, plus one per
// second.
func DefaultBudget() *Budget {
	return NewBudget(DefaultBudgetRatio, DefaultBudgetMinRetriesSec)
}

// Deposit records a call's first attempt at time now.
func (b *Budget) Deposit(now time.Time) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.slot(now).requests++
	b.mu.Unlock()
}

// Withdraw asks for one retry at time now and records it when allowed.
func (b *Budget) Withdraw(now time.Time) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.slot(now)
	var requests, retries int64
	for i := range b.slots {
		s := &b.slots[i]
		if s.index > cur.index-budgetSlots && s.index <= cur.index {
			requests += s.requests
			retries += s.retries
		}
	}
	if float64(retries+1) > b.ratio*float64(requests)+b.reserve {
		return false
	}
	cur.retries++
	return true
}

// slot returns the count for now's slot, recycling the slot it overwrites. A time before
// the latest one seen counts as that one. b.mu is held.
func (b *Budget) slot(now time.Time) *budgetCount {
	if !b.started {
		b.started, b.epoch = true, now
	}
	idx := max(int64(now.Sub(b.epoch)/budgetSlot), b.latest)
	b.latest = idx
	s := &b.slots[((idx%budgetSlots)+budgetSlots)%budgetSlots]
	if s.index != idx {
		*s = budgetCount{index: idx}
	}
	return s
}
