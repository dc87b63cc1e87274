package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/retrygen/retrygen/internal/herd"
)

const herdUsage = `usage: retrygen herd [-clients N] [-retries N] [-initial D] [-max D] [-window D]
                     [-retry-after D] [-seed N] [-json] [-svg FILE]
       retrygen herd -fail SHARE [-clients N] [-rate R] [-duration D] [-warmup D]
                     [-retries N] [-initial D] [-max D] [-latency D] [-seed N] [-json]
       retrygen herd -budgets [the flags of -fail]
       retrygen herd -chain N [-fail SHARE] [the flags of -fail but -clients]

The first form simulates N clients that fail at the same moment against a server that
stays down, each retrying with the runtime's own backoff code, and counts the retries that
land in each window: for a fixed delay, exponential backoff without jitter, full, equal and
decorrelated jitter, a server-sent Retry-After honoured exactly and as a floor with jitter
on top, and full jitter under a shared retry budget.

With -fail, clients make calls at a steady rate while SHARE of all attempts (0.3 or 30%;
1 is a total outage) fail at random, and the table shows, for no budget, retrygen's budget
and those of Finagle, Envoy, gRPC and the AWS SDKs, the calls that failed and the attempts
per call. -budgets runs that for a total outage and for 50%, 30% and 20% failing, side by
side. These forms default to 1 client making 10 calls/s for 1m after 10s of healthy traffic,
with the generated client's policy (3 retries, 500ms initial delay, 10s cap).

-chain N simulates a chain of N retrying clients (the user's, then N-1 services, each with
its own budget) in front of a store that fails: every layer retrying, with and without
budgets, one retry layer (services run runtime.OneRetryLayer), and a user's client of another
library that honours or ignores X-Should-Retry. It shows the attempts at the store per user
call and the share of user calls that failed, in a total outage and with 50% and 30% of the
store's attempts failing (or the one share -fail gives).

Long runs report their progress on stderr.
`

// steadyFlags are the flags of -fail and -budgets only; burstFlags those of the first form.
var (
	steadyFlags = []string{"rate", "duration", "warmup", "latency", "chain"}
	burstFlags  = []string{"window", "retry-after", "svg"}
)

// runHerd is "retrygen herd": it prints the simulation's table (or JSON) and, with -svg,
// writes the chart. Exit status: 0 done, 1 the chart could not be written, 2 usage. The
// two forms, the burst and the steady outage (-fail, -budgets), have flag sets of their
// own, with their own defaults.
func runHerd(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	steady := hasFlag(args, "fail") || hasFlag(args, "budgets") || hasFlag(args, "chain")
	wrong, why := steadyFlags, "herd: -%s goes with -fail, -budgets or -chain"
	if steady {
		wrong, why = burstFlags, "herd: -%s is for the first form, not with -fail, -budgets or -chain"
	}
	for _, name := range wrong {
		if hasFlag(args, name) {
			logger.Printf(why, name)
			return exitUsage
		}
	}
	if steady {
		return runSteadyHerd(args, stdout, stderr, logger)
	}
	return runBurstHerd(args, stdout, stderr, logger)
}

// hasFlag reports whether args set the flag name (-name, --name, -name=value) before a
// "--"; the values of other flags never read as one, as no herd flag takes a value that
// starts with a letter after a dash.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if n, _, _ := strings.Cut(a, "="); n == name {
			return true
		}
	}
	return false
}

// parseHerdFlags parses args into fs and refuses positional arguments.
func parseHerdFlags(fs *flag.FlagSet, args []string, logger *log.Logger) (int, bool) {
	if code, ok := parseFlags(fs, args, logger, ""); !ok {
		return code, false
	}
	if fs.NArg() != 0 {
		logger.Printf("herd takes no arguments, got %q", fs.Args())
		fs.Usage()
		return exitUsage, false
	}
	return 0, true
}

// runBurstHerd is the first form: clients that fail together against a server that
// stays down.
func runBurstHerd(args []string, stdout, stderr io.Writer, logger *log.Logger) int {
	fs := newFlagSet("retrygen herd", herdUsage, stderr)
	def := herd.DefaultConfig()
	c := def
	fs.IntVar(&c.Clients, "clients", def.Clients, "clients that fail together")
	fs.IntVar(&c.Retries, "retries", def.Retries, "retries per client after the first attempt")
	fs.DurationVar(&c.Initial, "initial", def.Initial, "backoff ceiling of the first retry")
	fs.DurationVar(&c.Max, "max", def.Max, "cap on one backoff step")
	fs.DurationVar(&c.Window, "window", def.Window, "width of a counting window")
	fs.DurationVar(&c.RetryAfter, "retry-after", def.RetryAfter, "the server's Retry-After in the Retry-After rows")
	fs.Uint64Var(&c.Seed, "seed", def.Seed, "random seed; the same seed gives the same figures")
	asJSON := fs.Bool("json", false, "print JSON instead of the table")
	svgFile := fs.String("svg", "", "also write the chart to `FILE` as SVG")
	if code, ok := parseHerdFlags(fs, args, logger); !ok {
		return code
	}
	if err := c.Validate(); err != nil {
		logger.Printf("herd: %v", err)
		return exitUsage
	}
	progress := newProgress(stderr)
	results, err := herd.RunProgress(c, progress.update)
	progress.finish()
	if err != nil {
		logger.Printf("herd: %v", err)
		return exitFail
	}
	if *asJSON {
		err = herd.WriteJSON(stdout, results)
	} else {
		err = herd.WriteTable(stdout, c, results)
	}
	if err == nil && *svgFile != "" {
		_, err = writeAtomic(*svgFile, herd.SVG(c, results))
	}
	if err != nil {
		logger.Print(err)
		return exitFail
	}
	return exitOK
}

// runSteadyHerd is the steady outage: -fail SHARE, or -budgets for several shares.
func runSteadyHerd(args []string, stdout, stderr io.Writer, logger *log.Logger) int {
	fs := newFlagSet("retrygen herd", herdUsage, stderr)
	def := herd.DefaultOutage()
	o := def
	retries := o.Attempts - 1
	fs.IntVar(&o.Clients, "clients", def.Clients, "clients, each with its own budget")
	fs.IntVar(&retries, "retries", retries, "retries per call after the first attempt")
	fs.DurationVar(&o.Initial, "initial", def.Initial, "backoff ceiling of the first retry")
	fs.DurationVar(&o.Max, "max", def.Max, "cap on one backoff step")
	fs.Uint64Var(&o.Seed, "seed", def.Seed, "random seed; the same seed gives the same figures")
	asJSON := fs.Bool("json", false, "print JSON instead of the table")
	fs.Func("fail", "share of attempts that fail at random, as 0.3 or 30%; 1 is a total outage", func(s string) error {
		f, err := parseShare(s)
		o.Fail = f
		return err
	})
	budgets := fs.Bool("budgets", false, "compare the budgets in a total outage and with 50%, 30% and 20% of attempts failing")
	fs.Float64Var(&o.Rate, "rate", def.Rate, "calls per second of each client")
	fs.DurationVar(&o.Duration, "duration", def.Duration, "how long the clients make calls")
	fs.DurationVar(&o.Warmup, "warmup", def.Warmup, "healthy traffic before the outage, not counted")
	fs.DurationVar(&o.Latency, "latency", def.Latency, "how long one attempt takes")
	depth := fs.Int("chain", 0, "simulate a chain of N retrying clients in front of a failing store")
	if code, ok := parseHerdFlags(fs, args, logger); !ok {
		return code
	}
	if hasFlag(args, "fail") && *budgets {
		logger.Printf("herd: -fail and -budgets do not go together: -budgets runs several shares of failures")
		return exitUsage
	}
	o.Attempts = retries + 1
	if hasFlag(args, "chain") {
		if *budgets || hasFlag(args, "clients") {
			logger.Printf("herd: -chain simulates one user's client; it takes neither -budgets nor -clients")
			return exitUsage
		}
		shares := herd.ChainShares
		if hasFlag(args, "fail") {
			shares = []float64{o.Fail}
		}
		return runChain(herd.ChainConfig{OutageConfig: o, Depth: *depth}, shares, *asJSON, stdout, logger)
	}
	progress := newProgress(stderr)
	defer progress.finish()
	return runSteady(o, *budgets, *asJSON, progress, stdout, logger)
}

// runChain is "retrygen herd -chain".
func runChain(c herd.ChainConfig, shares []float64, asJSON bool, stdout io.Writer, logger *log.Logger) int {
	if err := c.Validate(); err != nil {
		logger.Printf("herd: %v", err)
		return exitUsage
	}
	rows, err := herd.RunChain(c, shares)
	if err == nil && asJSON {
		err = herd.WriteChainJSON(stdout, rows)
	} else if err == nil {
		err = herd.WriteChainTable(stdout, c, rows)
	}
	if err != nil {
		logger.Printf("herd: %v", err)
		return exitFail
	}
	return exitOK
}

// runSteady is "retrygen herd -fail" and "retrygen herd -budgets".
func runSteady(o herd.OutageConfig, budgets, asJSON bool, progress *progress, stdout io.Writer, logger *log.Logger) int {
	if budgets {
		o.Fail = 1 // validated as a total outage; each column sets its own share
	}
	if err := o.Validate(); err != nil {
		logger.Printf("herd: %v", err)
		return exitUsage
	}
	var err error
	if budgets {
		var rows []herd.Tradeoff
		rows, err = herd.RunTradeoff(o, herd.TradeoffShares, progress.update)
		progress.finish()
		if err == nil && asJSON {
			err = herd.WriteTradeoffJSON(stdout, rows)
		} else if err == nil {
			err = herd.WriteTradeoffTable(stdout, o, rows)
		}
	} else {
		var rs []herd.OutageResult
		rs, err = herd.RunOutageProgress(o, herd.Shapes(), progress.update)
		progress.finish()
		if err == nil && asJSON {
			err = herd.WriteOutageJSON(stdout, rs)
		} else if err == nil {
			err = herd.WriteOutageTable(stdout, o, rs)
		}
	}
	if err != nil {
		logger.Printf("herd: %v", err)
		return exitFail
	}
	return exitOK
}

// parseShare reads a share of attempts as a number in [0, 1] or a percentage.
func parseShare(s string) (float64, error) {
	t, percent := strings.CutSuffix(strings.TrimSpace(s), "%")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("want a share such as 0.3 or 30%%, got %q", s)
	}
	if percent {
		f /= 100
	}
	if !(f >= 0 && f <= 1) {
		return 0, fmt.Errorf("want a share between 0 and 1 (0%% and 100%%), got %q", s)
	}
	return f, nil
}

// progress reports a long simulation's progress on a line of stderr: at once when stderr is
// a terminal, otherwise only once a run has taken progressAfter, then every progressEvery.
type progress struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	start    time.Time
	last     time.Time
	shown    bool
}

const (
	progressAfter = 2 * time.Second
	progressEvery = time.Second
)

func newProgress(stderr io.Writer) *progress {
	p := &progress{w: stderr, now: time.Now}
	if f, ok := stderr.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	p.start = p.now()
	return p
}

// update is given to the simulation: done of total units of work are done.
func (p *progress) update(done, total int64) {
	now := p.now()
	if !p.terminal && now.Sub(p.start) < progressAfter {
		return
	}
	if p.shown && now.Sub(p.last) < progressEvery && done < total {
		return
	}
	p.last, p.shown = now, true
	pct := 100 * float64(done) / float64(max(total, 1))
	line := fmt.Sprintf("herd: simulating, %3.0f%% done after %v", pct, now.Sub(p.start).Round(100*time.Millisecond))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// finish ends the progress line on a terminal, so that what follows starts on its own line.
func (p *progress) finish() {
	if p.shown && p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.shown = false
}
