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

// Default budget, chosen from the measurements of `retrygen herd -budgets` (docs/herd.md):
// each attempt that succeeded in the last BudgetWindow funds three retries and each attempt
// that failed takes one back, never below none, plus three retries per window (0.3 a second)
// so that a client with little traffic, or none yet, can retry a call. Nothing is granted
// per call. In a total outage nothing succeeds: the failures soon use up what the healthy
// traffic before it had funded, and retries add little more than the reserve to the offered
// load. While fewer than about three attempts in four fail, the successes pay for every
// retry the failures need, so a partial outage fails no more calls than it must.
const (
	DefaultBudgetRatio         = 0.0
	DefaultBudgetMinRetriesSec = 0.3
	DefaultBudgetSuccessRatio  = 3.0
	DefaultBudgetFailureCost   = 1.0
)

// Budget caps the retries of all calls of one client to a share of their recent calls and
// successes, so that in a total outage retries add a few percent to the offered load
// instead of multiplying it by MaxAttempts, while in a partial outage, where most attempts
// still succeed, the successes pay for the retries of the calls that failed.
//
// A retry is allowed when the retries of the last BudgetWindow, this one included, number at
// most
//
//	PerCall × calls + max(0, PerSuccess × successes − PerFailure × failures) + PerSecond × window
//
// where calls are the first attempts of that window, successes the attempts reported by
// Succeeded and failures those reported by Failed (see BudgetTerms). A first attempt is
// never refused. A nil *Budget allows every retry. It is safe for concurrent use.
//
// The methods take the current time explicitly, so that a simulation can drive a Budget in
// virtual time; Engine.Do passes its clock's time. A time earlier than one already seen
// counts as that one.
type Budget struct {
	terms   BudgetTerms // clamped
	reserve float64     // PerSecond × the window in seconds

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
	failures  int64
}

// BudgetTerms are what funds a Budget's retries, each counted over the last BudgetWindow.
// Negative or NaN terms count as 0; an infinite PerCall or PerSuccess allows every retry
// once a call or a success has been seen.
type BudgetTerms struct {
	PerCall    float64 // retries each call funds, whatever its outcome (0.1 = 10%)
	PerSuccess float64 // retries each attempt that succeeded funds
	PerFailure float64 // funded retries each failed attempt takes back (the reserve stays)
	PerSecond  float64 // retries a second allowed whatever happened: the reserve
}

// NewBudgetOf returns a budget with terms t.
func NewBudgetOf(t BudgetTerms) *Budget {
	t = BudgetTerms{
		PerCall:    budgetRatio(t.PerCall),
		PerSuccess: budgetRatio(t.PerSuccess),
		PerFailure: budgetRatio(t.PerFailure),
		PerSecond:  budgetRatio(t.PerSecond),
	}
	return &Budget{terms: t, reserve: t.PerSecond * BudgetWindow.Seconds()}
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
	return NewBudgetOf(BudgetTerms{PerCall: ratio, PerSuccess: successRatio, PerSecond: minRetriesPerSecond})
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

// DefaultBudget returns the budget of the Default constants: three retries for each recent
// successful attempt, less one for each recent failed attempt, plus three per BudgetWindow.
// Its successes and failures come from Succeeded and Failed; without successes it allows
// only the three.
func DefaultBudget() *Budget {
	return NewBudgetOf(BudgetTerms{
		PerCall:    DefaultBudgetRatio,
		PerSuccess: DefaultBudgetSuccessRatio,
		PerFailure: DefaultBudgetFailureCost,
		PerSecond:  DefaultBudgetMinRetriesSec,
	})
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

// Failed records, at time now, an attempt that ended in a failure that would be retried:
// a transport error or a status the call retries. Each one takes back PerFailure of what the
// successes funded while it stays in the window.
func (b *Budget) Failed(now time.Time) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.slot(now).failures++
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
	if b.available(cur) < 1 {
		return false
	}
	cur.retries++
	return true
}

// Available returns how many retries the budget allows at now: what the last
// BudgetWindow funded less the retries it took, below 1 when the next one would be
// refused; +Inf for a nil budget. It records nothing, for a gauge.
func (b *Budget) Available(now time.Time) float64 {
	if b == nil {
		return math.Inf(1)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.available(b.slot(now))
}

// available returns the retries the window that ends with slot cur allows beyond those
// taken. b.mu is held.
func (b *Budget) available(cur *budgetCount) float64 {
	var sum budgetCount
	for i := range b.slots {
		s := &b.slots[i]
		if s.index > cur.index-budgetSlots && s.index <= cur.index {
			sum.requests += s.requests
			sum.retries += s.retries
			sum.successes += s.successes
			sum.failures += s.failures
		}
	}
	t := &b.terms
	paid := t.PerSuccess * float64(sum.successes)
	if sum.failures > 0 && t.PerFailure > 0 {
		paid -= t.PerFailure * float64(sum.failures)
	}
	if !(paid > 0) { // none left, or infinite terms on both sides
		paid = 0
	}
	return t.PerCall*float64(sum.requests) + paid + b.reserve - float64(sum.retries)
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
