// Package herd simulates a herd of clients that fail together and retry, to show how a
// retry policy spreads their retries over time. It is the engine of `retrygen herd`.
//
// Every client makes its first attempt at t=0 against a server that stays down, then
// retries Config.Retries times. The waits come from the retry engine's own code
// (runtime.Policy.Backoff and Policy.Wait, runtime.ParseRetryAfter, runtime.Budget), in
// virtual time, so the figures describe what generated clients do. The simulation counts
// the retries that land in each window (100ms by default).
//
// RunOutage and RunTradeoff simulate steady traffic instead: clients make calls at a steady
// rate while a share of attempts fails at random, and each retry budget (the runtime's and
// those of other libraries, rebuilt as Limiters) is judged by the calls that fail and the
// attempts per call it lets through.
package herd

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// Config describes one simulation.
type Config struct {
	Clients    int           // clients that fail together at t=0, e.g. 1000
	Retries    int           // retries per client after the first attempt, e.g. 4
	Initial    time.Duration // backoff ceiling of the first retry, e.g. 1s
	Max        time.Duration // cap on one backoff step, e.g. 30s
	Window     time.Duration // width of a counting window, e.g. 100ms
	RetryAfter time.Duration // the server's Retry-After in the Retry-After rows, e.g. 30s
	Seed       uint64        // seeds every random draw; the same seed gives the same figures
}

// DefaultConfig is the scenario of the seed article: 1,000 clients, 4 retries each, 1s
// initial delay, 30s cap, 100ms windows, and a server that answers "Retry-After: 30".
func DefaultConfig() Config {
	return Config{
		Clients:    1000,
		Retries:    4,
		Initial:    time.Second,
		Max:        30 * time.Second,
		Window:     100 * time.Millisecond,
		RetryAfter: 30 * time.Second,
		Seed:       1,
	}
}

// Limits keep a simulation small enough to finish in seconds: its work grows with the
// retries of all clients, and its chart with the windows.
const (
	MaxClients      = 1_000_000
	MaxRetries      = 100
	MaxTotalRetries = 4_000_000 // clients × retries
	MaxWindows      = 100_000   // windows between t=0 and the last possible retry
)

// Validate reports the first setting the simulation cannot run with.
func (c Config) Validate() error {
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return fmt.Errorf("clients must be between 1 and %d, got %d", MaxClients, c.Clients)
	case c.Retries < 1 || c.Retries > MaxRetries:
		return fmt.Errorf("retries must be between 1 and %d, got %d", MaxRetries, c.Retries)
	case c.Initial <= 0:
		return fmt.Errorf("initial delay must be positive, got %v", c.Initial)
	case c.Max < c.Initial:
		return fmt.Errorf("max delay (%v) must not be less than the initial delay (%v)", c.Max, c.Initial)
	case c.Window <= 0:
		return fmt.Errorf("window must be positive, got %v", c.Window)
	case c.RetryAfter < 0:
		return fmt.Errorf("retry-after must not be negative, got %v", c.RetryAfter)
	case int64(c.Clients)*int64(c.Retries) > MaxTotalRetries:
		return fmt.Errorf("%d clients × %d retries is more than %d retries to simulate; lower -clients or -retries",
			c.Clients, c.Retries, MaxTotalRetries)
	}
	// The longest any client can take: every retry waits the hint plus the cap.
	span := float64(c.Retries) * (float64(c.RetryAfter) + float64(c.Max))
	if span/float64(c.Window) > MaxWindows {
		return fmt.Errorf("window %v is too small for %d retries of up to %v: more than %d windows",
			c.Window, c.Retries, c.RetryAfter+c.Max, MaxWindows)
	}
	return nil
}

// Result is one strategy's row: how its retries landed.
type Result struct {
	Strategy    string  `json:"strategy"`    // e.g. "full jitter"
	Peak        int     `json:"peak"`        // most retries in one window
	Windows     int     `json:"windows"`     // windows with at least one retry
	Total       int     `json:"total"`       // retries made
	LastSeconds float64 `json:"lastSeconds"` // time of the last retry, in seconds from t=0

	// Counts maps a window's index (from t=0) to the retries in it; only windows with
	// retries are present.
	Counts map[int]int `json:"-"`
}

// strategy is one row of the simulation: a policy, and how the server's hint is used.
type strategy struct {
	name   string
	policy runtime.Policy
	hint   hintUse
	budget bool // all clients share one runtime.DefaultBudget
}

type hintUse uint8

const (
	noHint    hintUse = iota
	hintExact         // wait exactly the server's Retry-After
	hintFloor         // Retry-After as a floor, jittered backoff on top (what Engine.Do does)
)

func strategies(c Config) []strategy {
	policy := func(j runtime.Jitter, multiplier float64) runtime.Policy {
		return runtime.Policy{InitialDelay: c.Initial, MaxDelay: c.Max, Multiplier: multiplier, Jitter: j}
	}
	ra := strconv.FormatInt(int64(c.RetryAfter/time.Second), 10)
	return []strategy{
		{name: "fixed delay", policy: policy(runtime.JitterNone, 1)},
		{name: "exponential, no jitter", policy: policy(runtime.JitterNone, 2)},
		{name: "full jitter", policy: policy(runtime.JitterFull, 2)},
		{name: "equal jitter", policy: policy(runtime.JitterEqual, 2)},
		{name: "decorrelated jitter", policy: policy(runtime.JitterDecorrelated, 2)},
		{name: "Retry-After " + ra + ", exact", policy: policy(runtime.JitterNone, 2), hint: hintExact},
		{name: "Retry-After " + ra + " + full jitter", policy: policy(runtime.JitterFull, 2), hint: hintFloor},
		{name: "full jitter + retry budget", policy: policy(runtime.JitterFull, 2), budget: true},
	}
}

// epoch anchors virtual time; any fixed instant works.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Run simulates every strategy under c and returns one Result per strategy, in a fixed
// order: fixed delay, exponential without jitter, full, equal and decorrelated jitter,
// Retry-After honoured exactly and as a floor, and full jitter under a shared retry budget.
func Run(c Config) ([]Result, error) {
	return RunProgress(c, nil)
}

// progressEvery is how many simulated retries pass between two calls of a progress func.
const progressEvery = 1 << 16

// RunProgress is Run that, if progress is not nil, calls it now and then with the work done
// and the work to do, in the same unit (retries simulated).
func RunProgress(c Config, progress func(done, total int64)) ([]Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	// The server's answer to every attempt, read by the engine's own parser. Retry-After
	// holds whole seconds, so a hint below 1s is sent as retry-after-ms.
	answer := http.Header{}
	if c.RetryAfter%time.Second == 0 {
		answer.Set("Retry-After", strconv.FormatInt(int64(c.RetryAfter/time.Second), 10))
	} else {
		answer.Set("Retry-After-Ms", strconv.FormatInt(c.RetryAfter.Milliseconds(), 10))
	}
	var out []Result
	ss := strategies(c)
	per := int64(c.Clients) * int64(c.Retries)
	meter := &meter{total: per * int64(len(ss)), report: progress}
	for i, s := range ss {
		if err := s.policy.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		rng := rand.New(rand.NewPCG(c.Seed, uint64(i)))
		r, err := simulate(c, s, answer, rng, meter)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		meter.set(per * int64(i+1))
		out = append(out, r)
	}
	return out, nil
}

// client is one client's state between retries.
type client struct {
	at    time.Duration // when its next retry goes out
	retry int           // which retry that is, from 1
	prev  time.Duration // the Backoff of its previous retry, for decorrelated jitter
}

// simulate runs one strategy. Retries are processed in time order, because a shared budget
// depends on the order in which clients ask it.
func simulate(c Config, s strategy, answer http.Header, rng *rand.Rand, m *meter) (Result, error) {
	res := Result{Strategy: s.name, Counts: map[int]int{}}
	var budget *runtime.Budget
	if s.budget {
		budget = runtime.DefaultBudget()
	}
	q := make(timeline[client], 0, c.Clients)
	// Every client's first attempt fails at t=0; it schedules retry 1.
	for range c.Clients {
		budget.Deposit(epoch)
		cl := client{retry: 1}
		if err := schedule(&cl, 0, s, answer, rng); err != nil {
			return res, err
		}
		q = append(q, cl)
	}
	heap.Init(&q)
	var last time.Duration
	for q.Len() > 0 {
		cl := heap.Pop(&q).(client)
		m.add(1)
		if s.budget && !budget.Withdraw(epoch.Add(cl.at)) {
			continue // the budget ends this client's call
		}
		w := int(cl.at / c.Window)
		res.Counts[w]++
		res.Total++
		last = max(last, cl.at)
		if cl.retry == c.Retries {
			continue
		}
		now := cl.at
		cl.retry++
		if err := schedule(&cl, now, s, answer, rng); err != nil {
			return res, err
		}
		heap.Push(&q, cl)
	}
	for _, n := range res.Counts {
		res.Peak = max(res.Peak, n)
	}
	res.Windows = len(res.Counts)
	res.LastSeconds = last.Seconds()
	return res, nil
}

// schedule sets when cl's next retry goes out, after its attempt failed at now.
func schedule(cl *client, now time.Duration, s strategy, answer http.Header, rng *rand.Rand) error {
	var wait time.Duration
	switch s.hint {
	case hintExact, hintFloor:
		hint, ok := runtime.ParseRetryAfter(answer, epoch.Add(now))
		if !ok {
			return errors.New("the server's Retry-After does not parse")
		}
		if s.hint == hintExact {
			wait = hint
			break
		}
		rnd := rng.Float64()
		wait = s.policy.Wait(cl.retry, cl.prev, hint, rnd)
		cl.prev = s.policy.Backoff(cl.retry, cl.prev, rnd)
	default:
		b := s.policy.Backoff(cl.retry, cl.prev, rng.Float64())
		wait, cl.prev = b, b
	}
	cl.at = now + wait
	return nil
}

// order puts a client's next retry in time, ties broken by retry number.
func (c client) order() (time.Duration, int64) { return c.at, int64(c.retry) }

// SortedWindows returns the indexes of r's windows with retries, in time order.
func (r Result) SortedWindows() []int {
	ws := make([]int, 0, len(r.Counts))
	for w := range r.Counts {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return ws
}

// meter counts a simulation's work and reports it every progressEvery units.
type meter struct {
	done, total int64
	next        int64
	report      func(done, total int64)
}

func (m *meter) add(n int64) { m.set(m.done + n) }

func (m *meter) set(done int64) {
	m.done = done
	if m.report != nil && (m.done >= m.next || m.done == m.total) {
		m.next = m.done + progressEvery
		m.report(m.done, m.total)
	}
}
