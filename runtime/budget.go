package runtime

import (
	"math"
	"sync"
	"time"
)

// Budget window: the budget counts the calls, retries and successes of the last
// BudgetWindow, in budgetSlots slots.
const (
	BudgetWindow = 10 * time.Second
	budgetSlots  = 10
	budgetSlot   = BudgetWindow / budgetSlots
)

// Default budget, chosen from the measurements of `retrygen herd -budgets`: one retry for
// each attempt that succeeded in the last BudgetWindow, plus three retries per window (0.3 a
// second) so that a client with little traffic, or none yet, can retry a call. Nothing is
// granted per call: in a total outage nothing succeeds, so retries add only the floor to
// the offered load, while when 30% of attempts fail the successes pay for every retry the
// failures need.
const (
	DefaultBudgetRatio         = 0.0
	DefaultBudgetMinRetriesSec = 0.3
	DefaultBudgetSuccessRatio  = 1.0
)

// Budget caps the retries of all calls of one client to a share of their recent calls and
// successes, so that in a total outage retries add a few percent to the offered load
// instead of multiplying it by MaxAttempts, while in a partial outage, where most attempts
// still succeed, the successes pay for the retries of the calls that failed.
//
// A retry is allowed when the retries of the last BudgetWindow, this one included, number at
// most ratio × the calls (first attempts) of that window, plus successRatio × the attempts
// that succeeded in that window (as reported by Succeeded), plus minRetriesPerSecond × the
// window in seconds. A retry funds further retries only by succeeding, and a first
// attempt is never refused. A nil *Budget allows every retry. It is safe for concurrent use.
//
// The methods take the current time explicitly, so that a simulation can drive a Budget in
// virtual time; Engine.Do passes its clock's time. A time earlier than one already seen
// counts as that one.
type Budget struct {
	ratio        float64
	successRatio float64
	reserve      float64 // minRetriesPerSecond × the window in seconds

	mu      sync.Mutex
	started bool
	epoch   time.Time // the first time seen; slots count from it
	latest  int64     // the latest slot seen; time never runs back for the budget
	slots   [budgetSlots]budgetCount
}

type budgetCount struct {
	index     int64 // which slot of time this count is for
	requests  int64
	retries   int64
	successes int64
}

// NewBudget returns a budget that allows retries up to ratio (0.1 = 10%) of recent calls
// plus minRetriesPerSecond, whatever their outcome: NewSuccessBudget(ratio,
// minRetriesPerSecond, 0). Negative or NaN arguments count as 0; NewBudget(0, 0) allows no
// retry at all. To turn the budget off, leave Engine.Budget nil.
func NewBudget(ratio float64, minRetriesPerSecond float64) *Budget {
	return NewSuccessBudget(ratio, minRetriesPerSecond, 0)
}

// NewSuccessBudget returns a budget that allows retries up to ratio of recent calls, plus
// successRatio of recent successful attempts, plus minRetriesPerSecond. Negative or NaN
// arguments count as 0; an infinite ratio or successRatio allows every retry once a call or
// a success has been seen.
func NewSuccessBudget(ratio, minRetriesPerSecond, successRatio float64) *Budget {
	return &Budget{
		ratio:        budgetRatio(ratio),
		successRatio: budgetRatio(successRatio),
		reserve:      budgetRatio(minRetriesPerSecond) * BudgetWindow.Seconds(),
	}
}

// budgetRatio clamps a ratio to [0, MaxFloat64]; NaN counts as 0.
func budgetRatio(r float64) float64 {
	switch {
	case !(r > 0):
		return 0
	case math.IsInf(r, 1):
		return math.MaxFloat64
	}
	return r
}

// DefaultBudget returns NewSuccessBudget(DefaultBudgetRatio, DefaultBudgetMinRetriesSec,
// DefaultBudgetSuccessRatio): one retry for each recent successful attempt, plus three per
// BudgetWindow. Its successes come from Succeeded; without them it allows only the three.
func DefaultBudget() *Budget {
	return NewSuccessBudget(DefaultBudgetRatio, DefaultBudgetMinRetriesSec, DefaultBudgetSuccessRatio)
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

// Succeeded records, at time now, an attempt that the server answered without a failure
// that would be retried: a 2xx, or a status the call does not retry. Each one funds
// successRatio retries while it stays in the window.
func (b *Budget) Succeeded(now time.Time) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.slot(now).successes++
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
	var requests, retries, successes int64
	for i := range b.slots {
		s := &b.slots[i]
		if s.index > cur.index-budgetSlots && s.index <= cur.index {
			requests += s.requests
			retries += s.retries
			successes += s.successes
		}
	}
	if float64(retries+1) > b.ratio*float64(requests)+b.successRatio*float64(successes)+b.reserve {
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
