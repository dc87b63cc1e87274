package herd

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// OutageConfig describes a steady-traffic scenario: each client makes calls at a steady
// rate while a share of all attempts fails at random. Fail 1 is a total outage; 0.3 is a
// partial one, where a retry usually succeeds. Each client has its own budget, as each
// generated client does.
//
// Before t=0 the clients make Warmup's worth of calls against a healthy server, so that a
// budget starts the outage with the history a running client has; those calls are not
// counted.
type OutageConfig struct {
	Clients  int           // clients, each with its own budget, e.g. 1
	Rate     float64       // calls per second of each client, e.g. 10
	Duration time.Duration // calls start during [0, Duration), e.g. 60s
	Warmup   time.Duration // healthy traffic before t=0, e.g. 0 or 10s
	Fail     float64       // share of attempts that fail, at random, in [0, 1]
	Attempts int           // attempts per call, the first included, e.g. 4
	Initial  time.Duration // backoff ceiling of the first retry (full jitter), e.g. 500ms
	Max      time.Duration // cap on one backoff step, e.g. 10s
	Latency  time.Duration // how long an attempt takes, e.g. 50ms
	Seed     uint64        // seeds every random draw; the same seed gives the same figures
}

// DefaultOutage is one client making 10 calls a second for a minute with the generated
// client's default policy (4 attempts, full jitter from 500ms, 10s cap) while 30% of attempts
// fail, after 10 seconds of healthy traffic.
func DefaultOutage() OutageConfig {
	return OutageConfig{
		Clients:  1,
		Rate:     10,
		Duration: time.Minute,
		Warmup:   10 * time.Second,
		Fail:     0.3,
		Attempts: 4,
		Initial:  500 * time.Millisecond,
		Max:      10 * time.Second,
		Latency:  50 * time.Millisecond,
		Seed:     1,
	}
}

// Limits keep a steady-traffic simulation small enough to finish in seconds.
const (
	MaxOutageWork     = 2_000_000 // calls × attempts per call, all clients, warm-up included
	MaxOutageAttempts = 10
	MaxOutageDuration = time.Hour
	MaxOutageRate     = 100_000 // calls per second of one client
)

// Calls returns how many calls c makes during the outage, all clients together.
func (c OutageConfig) Calls() int64 {
	return int64(c.Clients) * callsIn(c.Rate, c.Duration)
}

// callsIn returns how many calls at rate start in a span: one at 0, then every 1/rate.
func callsIn(rate float64, span time.Duration) int64 {
	if span <= 0 {
		return 0
	}
	return int64(math.Ceil(rate*span.Seconds() - 1e-9))
}

// Validate reports the first setting the simulation cannot run with.
func (c OutageConfig) Validate() error {
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return fmt.Errorf("clients must be between 1 and %d, got %d", MaxClients, c.Clients)
	case !(c.Rate > 0) || c.Rate > MaxOutageRate:
		return fmt.Errorf("rate must be a positive number of calls per second up to %d, got %v", MaxOutageRate, c.Rate)
	case c.Duration <= 0 || c.Duration > MaxOutageDuration:
		return fmt.Errorf("duration must be positive and at most %v, got %v", MaxOutageDuration, c.Duration)
	case c.Warmup < 0 || c.Warmup > MaxOutageDuration:
		return fmt.Errorf("warm-up must be between 0 and %v, got %v", MaxOutageDuration, c.Warmup)
	case !(c.Fail >= 0 && c.Fail <= 1):
		return fmt.Errorf("fail must be a share between 0 and 1, got %v", c.Fail)
	case c.Attempts < 1 || c.Attempts > MaxOutageAttempts:
		return fmt.Errorf("attempts must be between 1 and %d, got %d", MaxOutageAttempts, c.Attempts)
	case c.Initial <= 0:
		return fmt.Errorf("initial delay must be positive, got %v", c.Initial)
	case c.Max < c.Initial:
		return fmt.Errorf("max delay (%v) must not be less than the initial delay (%v)", c.Max, c.Initial)
	case c.Latency < 0:
		return fmt.Errorf("latency must not be negative, got %v", c.Latency)
	}
	// Each client makes at least one call in each span; count as the simulation does.
	calls := float64(c.Clients) * float64(callsIn(c.Rate, c.Warmup)+callsIn(c.Rate, c.Duration))
	if calls*float64(c.Attempts) > MaxOutageWork {
		return fmt.Errorf("%d clients at %v calls/s for %v (warm-up included) make %.0f calls of up to %d attempts, "+
			"more than %d attempts to simulate; lower -clients, -rate, -duration or -attempts",
			c.Clients, c.Rate, c.Duration+c.Warmup, calls, c.Attempts, MaxOutageWork)
	}
	return nil
}

// OutageResult is one budget's row: what became of the calls made during the outage.
type OutageResult struct {
	Budget        string  `json:"budget"`        // e.g. "none" or "retrygen default"
	Fail          float64 `json:"fail"`          // the share of attempts that failed, as configured
	Calls         int     `json:"calls"`         // calls made during the outage
	Failed        int     `json:"failed"`        // calls that ended in failure
	Refused       int     `json:"refused"`       // of those, calls whose retry the budget refused
	Attempts      int     `json:"attempts"`      // attempts of those calls, first attempts included
	FailedShare   float64 `json:"failedShare"`   // Failed / Calls
	Amplification float64 `json:"amplification"` // Attempts / Calls: the offered load multiplied
}

// A Limiter is one retry budget under test: the runtime's Budget or another library's shape
// rebuilt for the comparison. The simulation tells it about every attempt of one client.
type Limiter interface {
	// Start is called when an attempt goes out; attempt counts from 1.
	Start(now time.Duration, attempt int)
	// Succeed is called when an attempt succeeds.
	Succeed(now time.Duration, attempt int)
	// Fail is called when an attempt fails; last says the call has no attempt left. When
	// last is false it reports whether the retry may go out (and accounts for it).
	Fail(now time.Duration, attempt int, last bool) bool
}

// A BudgetShape names a Limiter and makes one for each client.
type BudgetShape struct {
	Name string
	New  func() Limiter // nil: no budget
}

// Shapes returns the budgets that `retrygen herd -fail` compares, in a fixed order: none,
// the runtime's default, the default as an engine that reports no successes sees it, the
// runtime's budget with its two former defaults, Finagle's and Envoy's default budgets, gRPC's
// retry throttling and the AWS SDKs' retry quota.
func Shapes() []BudgetShape {
	return []BudgetShape{
		{Name: "none"},
		{Name: "retrygen default", New: func() Limiter { return runtimeLimiter{b: runtime.DefaultBudget(), successes: true} }},
		{Name: "retrygen default, successes not reported", New: func() Limiter { return runtimeLimiter{b: runtime.DefaultBudget()} }},
		{Name: "retrygen before: 1 per success + 0.3/s", New: func() Limiter {
			return runtimeLimiter{b: runtime.NewSuccessBudget(0, 0.3, 1), successes: true}
		}},
		{Name: "retrygen earlier: 10% + 1/s", New: func() Limiter { return runtimeLimiter{b: runtime.NewBudget(0.1, 1)} }},
		{Name: "Finagle: 20% + 10/s, ttl 10s", New: func() Limiter { return runtimeLimiter{b: runtime.NewBudget(0.2, 10)} }},
		{Name: "Envoy: 20% of active, min 3", New: func() Limiter { return &envoyBudget{percent: 0.2, min: 3} }},
		{Name: "gRPC throttling: 10 tokens, ratio 0.1", New: func() Limiter { return newGRPCThrottle(10, 0.1) }},
		{Name: "AWS retry quota: 500, 5/retry", New: func() Limiter { return newAWSQuota(500, 5, 1) }},
	}
}

// runtimeLimiter drives a runtime.Budget as Engine.Do does: Deposit before a call's first
// attempt, Failed after an attempt that failed and Withdraw before each retry, and, when
// successes is set, Succeeded after an attempt that succeeded.
type runtimeLimiter struct {
	b         *runtime.Budget
	successes bool
}

func (r runtimeLimiter) Start(now time.Duration, attempt int) {
	if attempt == 1 {
		r.b.Deposit(epoch.Add(now))
	}
}

func (r runtimeLimiter) Succeed(now time.Duration, _ int) {
	if r.successes {
		r.b.Succeeded(epoch.Add(now))
	}
}

func (r runtimeLimiter) Fail(now time.Duration, _ int, last bool) bool {
	r.b.Failed(epoch.Add(now))
	return !last && r.b.Withdraw(epoch.Add(now))
}

// envoyBudget is Envoy's retry budget (circuit_breakers.thresholds.retry_budget): the
// retries in progress may not exceed budget_percent of the requests in flight, or
// min_retry_concurrency if that is more. A retry is in progress from the moment it is
// granted, through its backoff, until its attempt ends.
type envoyBudget struct {
	percent  float64
	min      int
	inFlight int // attempts in flight
	retries  int // retries granted whose attempt has not ended
}

func (e *envoyBudget) Start(time.Duration, int) { e.inFlight++ }

func (e *envoyBudget) end(attempt int) {
	e.inFlight--
	if attempt > 1 {
		e.retries--
	}
}

func (e *envoyBudget) Succeed(_ time.Duration, attempt int) { e.end(attempt) }

func (e *envoyBudget) Fail(_ time.Duration, attempt int, last bool) bool {
	e.end(attempt)
	if last {
		return false
	}
	limit := max(int(e.percent*float64(e.inFlight)), e.min)
	if e.retries >= limit {
		return false
	}
	e.retries++
	return true
}

// grpcThrottle is gRPC's retry throttling (gRFC A6): a token count that starts at maxTokens,
// loses 1 for each failed attempt and gains tokenRatio for each success, capped at
// maxTokens; retries are allowed while it is above maxTokens/2. Counted in thousandths of a
// token, as gRPC's C core does.
type grpcThrottle struct {
	milli, max, ratio int64
}

func newGRPCThrottle(maxTokens, tokenRatio float64) *grpcThrottle {
	m := int64(maxTokens * 1000)
	return &grpcThrottle{milli: m, max: m, ratio: int64(tokenRatio * 1000)}
}

func (g *grpcThrottle) Start(time.Duration, int) {}

func (g *grpcThrottle) Succeed(time.Duration, int) { g.milli = min(g.milli+g.ratio, g.max) }

func (g *grpcThrottle) Fail(_ time.Duration, _ int, last bool) bool {
	g.milli = max(g.milli-1000, 0)
	return !last && g.milli > g.max/2
}

// awsQuota is the AWS SDKs' retry quota (standard retry mode): a bucket of capacity tokens,
// full at the start; a retry costs cost tokens and is refused when fewer are left; a success
// refunds the cost of the retry that succeeded, or adds noRetry when the call succeeded at its
// first attempt. The failures here are not timeouts, which cost twice as much.
type awsQuota struct {
	tokens, capacity, cost, noRetry int
}

func newAWSQuota(capacity, cost, noRetry int) *awsQuota {
	return &awsQuota{tokens: capacity, capacity: capacity, cost: cost, noRetry: noRetry}
}

func (a *awsQuota) Start(time.Duration, int) {}

func (a *awsQuota) Succeed(_ time.Duration, attempt int) {
	if attempt > 1 {
		a.tokens = min(a.tokens+a.cost, a.capacity)
	} else {
		a.tokens = min(a.tokens+a.noRetry, a.capacity)
	}
}

func (a *awsQuota) Fail(_ time.Duration, _ int, last bool) bool {
	if last || a.tokens < a.cost {
		return false
	}
	a.tokens -= a.cost
	return true
}

// RunOutage simulates every budget of Shapes under c, in that order.
func RunOutage(c OutageConfig) ([]OutageResult, error) {
	return RunOutageProgress(c, Shapes(), nil)
}

// RunOutageProgress simulates each of shapes under c. If progress is not nil it is called
// now and then with the work done and the work to do, in the same unit (calls simulated).
func RunOutageProgress(c OutageConfig, shapes []BudgetShape, progress func(done, total int64)) ([]OutageResult, error) {
	return runOutage(c, shapes, &meter{total: c.work() * int64(len(shapes)), report: progress})
}

// work returns the calls a run of one shape simulates, warm-up included.
func (c OutageConfig) work() int64 {
	return int64(c.Clients) * (callsIn(c.Rate, c.Warmup) + callsIn(c.Rate, c.Duration))
}

func runOutage(c OutageConfig, shapes []BudgetShape, m *meter) ([]OutageResult, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	pol := runtime.Policy{InitialDelay: c.Initial, MaxDelay: c.Max, Multiplier: 2, Jitter: runtime.JitterFull}
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	out := make([]OutageResult, 0, len(shapes))
	for _, s := range shapes {
		// Every shape sees the same calls and, attempt for attempt, the same outcomes and
		// waits: each draw is a hash of the seed, the client, the call and the attempt.
		base := m.done
		out = append(out, simulateOutage(c, &pol, s, m))
		m.set(base + c.work())
	}
	return out, nil
}

// TradeoffShares are the shares of failing attempts in the trade-off table: a total outage,
// then partial ones.
var TradeoffShares = []float64{1, 0.5, 0.3, 0.2}

// Tradeoff is one budget's row of the trade-off table.
type Tradeoff struct {
	Budget  string         `json:"budget"`
	Results []OutageResult `json:"results"` // one per share of failing attempts, in order
}

// RunTradeoff simulates every budget of Shapes under c with each of shares as c.Fail, and
// returns a row per budget. progress is as for RunOutageProgress.
func RunTradeoff(c OutageConfig, shares []float64, progress func(done, total int64)) ([]Tradeoff, error) {
	shapes := Shapes()
	rows := make([]Tradeoff, len(shapes))
	for i, s := range shapes {
		rows[i].Budget = s.Name
	}
	m := &meter{total: c.work() * int64(len(shapes)*len(shares)), report: progress}
	for _, f := range shares {
		cf := c
		cf.Fail = f
		rs, err := runOutage(cf, shapes, m)
		if err != nil {
			return nil, err
		}
		for i, r := range rs {
			rows[i].Results = append(rows[i].Results, r)
		}
	}
	return rows, nil
}

// call is one call's state between attempts.
type call struct {
	at      time.Duration // when the event happens
	seq     int64         // order of creation, to break ties deterministically
	client  int32
	attempt int32 // the attempt that starts or ends at at
	index   int64 // the call's index among its client's calls, warm-up included
	ending  bool  // the attempt ends at at (else it starts)
	counted bool  // made during the outage, not the warm-up
	prev    time.Duration
}

func (c call) order() (time.Duration, int64) { return c.at, c.seq }

func simulateOutage(c OutageConfig, pol *runtime.Policy, s BudgetShape, m *meter) OutageResult {
	res := OutageResult{Budget: s.Name, Fail: c.Fail}
	limiters := make([]Limiter, c.Clients)
	nextCall := make([]int64, c.Clients) // index of each client's next call, from its first warm-up call
	period := time.Duration(float64(time.Second) / c.Rate)
	warm := callsIn(c.Rate, c.Warmup)
	total := warm + callsIn(c.Rate, c.Duration)
	var seq int64
	q := make(timeline[call], 0, c.Clients)
	for i := range c.Clients {
		if s.New != nil {
			limiters[i] = s.New()
		}
		// Clients are spread over one period, so that they do not all call at once.
		phase := time.Duration(draw(c.Seed, i, -1, 0, 0) * float64(period))
		q = append(q, call{at: phase - time.Duration(warm)*period, seq: seq, client: int32(i), attempt: 1})
		seq++
	}
	heap.Init(&q)
	for q.Len() > 0 {
		ev := heap.Pop(&q).(call)
		lim := limiters[ev.client]
		if !ev.ending {
			if ev.attempt == 1 {
				// A new call: it is counted when it is not a warm-up call; the client's next
				// call is queued.
				m.add(1)
				ev.index = nextCall[ev.client]
				ev.counted = ev.index >= warm
				nextCall[ev.client]++
				if nextCall[ev.client] < total {
					heap.Push(&q, call{at: ev.at + period, seq: seq, client: ev.client, attempt: 1})
					seq++
				}
				if ev.counted {
					res.Calls++
				}
			}
			if ev.counted {
				res.Attempts++
			}
			if lim != nil {
				lim.Start(ev.at, int(ev.attempt))
			}
			ev.ending = true
			ev.at += c.Latency
			ev.seq = seq
			seq++
			heap.Push(&q, ev)
			continue
		}
		// The attempt ends: a warm-up call's attempts succeed, the others fail at random.
		failed := ev.counted && draw(c.Seed, int(ev.client), ev.index, ev.attempt, 0) < c.Fail
		if !failed {
			if lim != nil {
				lim.Succeed(ev.at, int(ev.attempt))
			}
			continue
		}
		last := int(ev.attempt) >= c.Attempts
		allowed := !last
		if lim != nil {
			allowed = lim.Fail(ev.at, int(ev.attempt), last)
		}
		if !allowed {
			if ev.counted {
				res.Failed++
				if !last {
					res.Refused++
				}
			}
			continue
		}
		b := pol.Backoff(int(ev.attempt), ev.prev, draw(c.Seed, int(ev.client), ev.index, ev.attempt, 1))
		ev.prev = b
		ev.attempt++
		ev.ending = false
		ev.at += b
		ev.seq = seq
		seq++
		heap.Push(&q, ev)
	}
	if res.Calls > 0 {
		res.FailedShare = float64(res.Failed) / float64(res.Calls)
		res.Amplification = float64(res.Attempts) / float64(res.Calls)
	}
	return res
}

// draw returns a number uniform in [0, 1) that depends only on its arguments: which seed,
// client, call, attempt and which draw of that attempt.
func draw(seed uint64, client int, index int64, attempt int32, which uint64) float64 {
	h := splitmix(seed ^ splitmix(uint64(client)^splitmix(uint64(index)^splitmix(uint64(attempt)<<8|which))))
	return float64(h>>11) / (1 << 53)
}

// splitmix is SplitMix64's finaliser, a bijective mix of the 64 bits of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
