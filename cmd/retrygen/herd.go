package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/retrygen/retrygen/internal/herd"
)

const herdUsage = `usage: retrygen herd [-clients N] [-retries N] [-initial D] [-max D] [-window D]
                     [-retry-after D] [-seed N] [-json] [-svg FILE]

Simulates N clients that fail at the same moment against a server that stays down, each
retrying with the runtime's own backoff code, and counts the retries that land in each
window: for a fixed delay, exponential backoff without jitter, full, equal and
decorrelated jitter, a server-sent Retry-After honoured exactly and as a floor with
jitter on top, and full jitter under a shared retry budget.
`

// runHerd is "retrygen herd": it prints the simulation's table (or JSON) and, with -svg,
// writes the chart. Exit status: 0 done, 1 the chart could not be written, 2 usage.
func runHerd(args []string, stdout, stderr io.Writer) int {
	logger := newLogger(stderr)
	def := herd.DefaultConfig()
	fs := flag.NewFlagSet("retrygen herd", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(stderr, herdUsage+"\nFlags:\n")
		fs.SetOutput(stderr)
		fs.PrintDefaults()
	}
	c := def
	fs.IntVar(&c.Clients, "clients", def.Clients, "clients that fail together")
	fs.IntVar(&c.Retries, "retries", def.Retries, "retries per client after the first attempt")
	fs.DurationVar(&c.Initial, "initial", def.Initial, "backoff ceiling of the first retry")
	fs.DurationVar(&c.Max, "max", def.Max, "cap on one backoff step")
	fs.DurationVar(&c.Window, "window", def.Window, "width of a counting window")
	fs.DurationVar(&c.RetryAfter, "retry-after", def.RetryAfter, "the server's Retry-After in the Retry-After rows")
	fs.Uint64Var(&c.Seed, "seed", def.Seed, "random seed; the same seed gives the same figures")
	asJSON := fs.Bool("json", false, "print a JSON array instead of the table")
	svgFile := fs.String("svg", "", "also write the chart to `FILE` as SVG")
	if code, ok := parseFlags(fs, args, logger); !ok {
		return code
	}
	if fs.NArg() != 0 {
		logger.Printf("herd takes no arguments, got %q", fs.Args())
		fs.Usage()
		return exitUsage
	}
	if err := c.Validate(); err != nil {
		logger.Printf("herd: %v", err)
		return exitUsage
	}
	results, err := herd.Run(c)
	if err != nil {
		logger.Printf("herd: %v", err)
		return exitFail
	}
	if *asJSON {
		err = herd.WriteJSON(stdout, results)
	} else {
		err = herd.WriteTable(stdout, c, results)
	}
	if err != nil {
		logger.Print(err)
		return exitFail
	}
	if *svgFile != "" {
		if _, err := writeAtomic(*svgFile, herd.SVG(c, results)); err != nil {
			logger.Print(err)
			return exitFail
		}
	}
	return exitOK
}
