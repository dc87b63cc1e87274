package herd

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// A chain is a row of retrying clients: the user's client calls the first service, whose
// client calls the next, and the last one calls a store that fails. Depth counts the
// clients, the user's included: depth 1 is a client calling the store directly, depth 3 a
// user's client, two services and the store. Every client makes up to Attempts attempts
// with the outage's backoff, so without anything to stop them the store sees
// Attempts^Depth attempts for each user call that fails.

// MaxChainDepth bounds the clients in a chain.
const MaxChainDepth = 5

// ChainConfig is a chain simulation: OutageConfig's traffic (Clients is ignored: one user
// client makes the calls) through Depth clients.
type ChainConfig struct {
	OutageConfig
	Depth int
}

// Validate reports the first setting the simulation cannot run with.
func (c ChainConfig) Validate() error {
	o := c.OutageConfig
	o.Clients = 1
	if err := o.Validate(); err != nil {
		return err
	}
	if c.Depth < 1 || c.Depth > MaxChainDepth {
		return fmt.Errorf("chain depth must be between 1 and %d, got %d", MaxChainDepth, c.Depth)
	}
	calls := float64(callsIn(c.Rate, c.Warmup) + callsIn(c.Rate, c.Duration))
	if work := calls * math.Pow(float64(c.Attempts), float64(c.Depth)); work > MaxOutageWork {
		return fmt.Errorf("%.0f calls through %d clients of up to %d attempts make up to %.0f attempts at the store, "+
			"more than %d to simulate; lower -chain, -rate, -duration or -retries",
			calls, c.Depth, c.Attempts, work, MaxOutageWork)
	}
	return nil
}

// ChainSetup is one way of running a chain: which budget each client has, whether the
// services answer with one retry layer's X-Should-Retry: false after a call of theirs gave
// up, and whether the user's client is another library's (Attempts attempts, no budget)
// that honours that header or ignores it.
type ChainSetup struct {
	Name     string `json:"name"`
	Budget   bool   `json:"budget"`   // runtime.DefaultBudget in every retrygen client
	OneLayer bool   `json:"oneLayer"` // services run runtime.OneRetryLayer
	Foreign  string `json:"foreign"`  // "" (a retrygen client), "honours" or "ignores"
}

// ChainSetups returns the setups `retrygen herd -chain` compares, in a fixed order.
func ChainSetups() []ChainSetup {
	return []ChainSetup{
		{Name: "every layer retries, no budget"},
		{Name: "every layer retries, default budgets", Budget: true},
		{Name: "one retry layer, no budget", OneLayer: true},
		{Name: "one retry layer, default budgets", Budget: true, OneLayer: true},
		{Name: "same, user's client foreign, honours the signal", Budget: true, OneLayer: true, Foreign: "honours"},
		{Name: "same, user's client foreign, ignores the signal", Budget: true, OneLayer: true, Foreign: "ignores"},
	}
}

// ChainResult is what one setup gave in one outage.
type ChainResult struct {
	Fail        float64 `json:"fail"`        // the share of the store's attempts that failed
	Calls       int     `json:"calls"`       // user calls made during the outage
	Failed      int     `json:"failed"`      // of those, calls that failed
	StoreCalls  int     `json:"storeCalls"`  // attempts at the store for those calls
	FailedShare float64 `json:"failedShare"` // Failed / Calls
	StoreLoad   float64 `json:"storeLoad"`   // StoreCalls / Calls
}

// ChainRow is one setup's results, one per share of failing store attempts.
type ChainRow struct {
	Setup   ChainSetup    `json:"setup"`
	Results []ChainResult `json:"results"`
}

// ChainShares are the outages of the chain table: a total one, then partial ones.
var ChainShares = []float64{1, 0.5, 0.3}

// RunChain simulates every setup of ChainSetups under c with each of shares as the share
// of failing store attempts.
func RunChain(c ChainConfig, shares []float64) ([]ChainRow, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	pol := runtime.Policy{InitialDelay: c.Initial, MaxDelay: c.Max, Multiplier: 2, Jitter: runtime.JitterFull}
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	var rows []ChainRow
	for _, s := range ChainSetups() {
		row := ChainRow{Setup: s}
		for _, f := range shares {
			cf := c
			cf.Fail = f
			row.Results = append(row.Results, simulateChain(cf, &pol, s))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// chainCall is one call of one client of the chain (tier 0 is the user's), between its
// attempts. An attempt of a tier above the last one is a call of the tier below.
type chainCall struct {
	tier    int
	id      int64 // unique, in order of creation: the key of the call's random draws
	parent  *chainCall
	attempt int32
	prev    time.Duration // the previous backoff
	counted bool          // made for a user call of the outage, not of the warm-up
}

// chainEvent is an attempt of c starting (at its time), or, for the last tier, ending.
type chainEvent struct {
	at     time.Duration
	seq    int64
	call   *chainCall
	ending bool
}

func (e chainEvent) order() (time.Duration, int64) { return e.at, e.seq }

// chainSim is one run of simulateChain.
type chainSim struct {
	c      ChainConfig
	pol    *runtime.Policy
	setup  ChainSetup
	q      timeline[chainEvent]
	seq    int64
	ids    int64
	budget []*runtime.Budget // one per tier: each tier is one process's client; nil for none
	res    ChainResult
}

func (s *chainSim) push(at time.Duration, c *chainCall, ending bool) {
	heap.Push(&s.q, chainEvent{at: at, seq: s.seq, call: c, ending: ending})
	s.seq++
}

func (s *chainSim) newCall(tier int, parent *chainCall, counted bool) *chainCall {
	s.ids++
	return &chainCall{tier: tier, id: s.ids, parent: parent, attempt: 1, counted: counted}
}

func simulateChain(c ChainConfig, pol *runtime.Policy, setup ChainSetup) ChainResult {
	s := &chainSim{c: c, pol: pol, setup: setup, budget: make([]*runtime.Budget, c.Depth)}
	s.res.Fail = c.Fail
	for t := range s.budget {
		if setup.Budget && !(t == 0 && setup.Foreign != "") {
			s.budget[t] = runtime.DefaultBudget()
		}
	}
	period := time.Duration(float64(time.Second) / c.Rate)
	warm := callsIn(c.Rate, c.Warmup)
	total := warm + callsIn(c.Rate, c.Duration)
	for i := range total {
		counted := i >= warm
		if counted {
			s.res.Calls++
		}
		s.push(time.Duration(i-warm)*period, s.newCall(0, nil, counted), false)
	}
	for s.q.Len() > 0 {
		ev := heap.Pop(&s.q).(chainEvent)
		if ev.ending {
			// The store answers the last tier's attempt.
			failed := ev.call.counted && draw(c.Seed, ev.call.tier, ev.call.id, ev.call.attempt, 0) < c.Fail
			s.attemptEnded(ev.at, ev.call, !failed, false)
			continue
		}
		s.attemptStarted(ev.at, ev.call)
	}
	if s.res.Calls > 0 {
		s.res.FailedShare = float64(s.res.Failed) / float64(s.res.Calls)
		s.res.StoreLoad = float64(s.res.StoreCalls) / float64(s.res.Calls)
	}
	return s.res
}

func (s *chainSim) attemptStarted(now time.Duration, c *chainCall) {
	if c.attempt == 1 {
		s.budget[c.tier].Deposit(epoch.Add(now))
	}
	if c.tier == s.c.Depth-1 {
		if c.counted {
			s.res.StoreCalls++
		}
		s.push(now+s.c.Latency, c, true)
		return
	}
	s.attemptStarted(now, s.newCall(c.tier+1, c, c.counted))
}

// attemptEnded decides what c does after an attempt that succeeded (ok) or failed, with
// noRetry when the answer said X-Should-Retry: false.
func (s *chainSim) attemptEnded(now time.Duration, c *chainCall, ok, noRetry bool) {
	b := s.budget[c.tier]
	at := epoch.Add(now)
	if ok {
		b.Succeeded(at)
		s.callEnded(now, c, true)
		return
	}
	b.Failed(at)
	honours := !(c.tier == 0 && s.setup.Foreign == "ignores")
	if (noRetry && honours) || int(c.attempt) >= s.c.Attempts || !b.Withdraw(at) {
		s.callEnded(now, c, false)
		return
	}
	wait := s.pol.Backoff(int(c.attempt), c.prev, draw(s.c.Seed, c.tier, c.id, c.attempt, 1))
	c.prev = wait
	c.attempt++
	s.push(now+wait, c, false)
}

// callEnded passes c's outcome to the attempt of the tier above it, or counts it when c is
// a user call. Every failure in the chain is a give-up for load reasons (retries run out,
// the budget refused, the server said not to retry), so a service with one retry layer
// answers it with X-Should-Retry: false.
func (s *chainSim) callEnded(now time.Duration, c *chainCall, ok bool) {
	if c.parent == nil {
		if c.counted && !ok {
			s.res.Failed++
		}
		return
	}
	s.attemptEnded(now, c.parent, ok, !ok && s.setup.OneLayer)
}
