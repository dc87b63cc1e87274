package gen

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// peakMemory is the peak resident memory of a finished process and the children it
// waited for, where the system tells it.
func peakMemory(ps *os.ProcessState) string {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru != nil {
		return fmt.Sprintf("%d MiB", ru.Maxrss/1024) // kilobytes on Linux
	}
	return "unknown"
}

// gcPercent is the GOGC measureHeap runs with: a collection each time the heap grows by
// a tenth, so that the live heap is read close to its peak.
const gcPercent = 10

// heapPeak is what measureHeap found: the most heap, in bytes, live at the end of one of
// the collections during the run, and how many collections it saw.
type heapPeak struct {
	live   uint64
	cycles int
}

// measureHeap runs f and returns the peak of its live heap, read from the runtime's
// metrics at the end of every garbage collection during f, with GOGC at gcPercent:
// allocation, not time. The heap left over from before f is collected first.
func measureHeap(f func()) heapPeak {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	runtime.GC()
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var (
		mu   sync.Mutex
		peak heapPeak
		done bool
		last uint64
	)
	read := func() {
		metrics.Read(samples)
		if c := samples[1].Value.Uint64(); c != last {
			last = c
			peak.cycles++
			peak.live = max(peak.live, samples[0].Value.Uint64())
		}
	}
	metrics.Read(samples)
	last = samples[1].Value.Uint64()
	// A finalizer runs after each collection that finds its object unreachable; it
	// re-arms itself with a new object until f returns.
	var arm func()
	arm = func() {
		sentinel := new([16]byte)
		runtime.SetFinalizer(sentinel, func(*[16]byte) {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return
			}
			read()
			arm()
		})
	}
	mu.Lock()
	arm()
	mu.Unlock()
	f()
	runtime.GC() // the heap f leaves
	mu.Lock()
	read()
	done = true
	out := peak
	mu.Unlock()
	return out
}

// wideSpec writes, from seed, a JSON description of ops GET operations on paths of their
// own, each answering with an object of props inline properties of assorted types and
// titles, a line each: a spec as large as a big public one whose every count stays under
// the documented caps.
func wideSpec(seed uint64, ops, props int) string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := strings.Fields("account amount balance card charge customer date event fee invoice item " +
		"limit method note order owner payment plan price quantity refund source status token total type")
	types := []string{"string", "integer", "number", "boolean"}
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Wide","version":"1"},"paths":{`)
	for i := range ops {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n"+`"/r%d/{id}":{"get":{"operationId":"get%s%d",`, i, words[r.IntN(len(words))], i)
		b.WriteString(`"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],`)
		b.WriteString(`"responses":{"200":{"description":"OK","content":{"application/json":{"schema":{"type":"object","properties":{`)
		for p := range props {
			if p > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n"+`"%s%d":{"type":"%s","title":"%s"}`,
				words[r.IntN(len(words))], p, types[r.IntN(len(types))], words[r.IntN(len(words))])
		}
		b.WriteString("}}}}}}}}")
	}
	b.WriteString("}}\n")
	return b.String()
}

// stages runs what the retrygen command runs for `plan` and for generating a client, each
// from its own load, so that neither holds the other's memory.
func stages(t testing.TB, path string) {
	t.Helper()
	s, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Plan(io.Discard, s, PlanOptions{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	s = nil
	s, err = Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateFiles(s, GenerateOptions{Package: "client", Command: path}, SplitAbove); err != nil {
		t.Fatal(err)
	}
}

// TestPeakHeap holds loading, planning and generating to memory in proportion to the spec.
// The figure checked is twice the peak live heap, which is what the heap grows to at the
// default GOGC and what the process's resident memory follows: for a JSON spec of 1,800
// operations with 40 inline properties each (3.8 MB, about 495,000 nodes), 512 MiB (it
// was 1 GiB when the root file was parsed again to locate places; it reads about 390).
// The live heap read at the end of each collection varies by a tenth with when the
// collections fall, most on a busy machine, so stripe.yaml's figure, the
// one near its bound, is the least of three runs.
// stripe.yaml reads 106 MiB (53 live, at the parse, when the YAML parser's tree and
// the compact one source.Files keeps are both whole) and is held to 125: the loader
// that recorded the place of every key in the origins and decoded the document on top
// of the whole tree read 128 to 152 (64 to 76 live), and the one that had kin-openapi
// parse the text a second time 172 to 180.
func TestPeakHeap(t *testing.T) {
	longtest.Heavy(t)
	for _, c := range []struct {
		name  string
		path  func(t *testing.T) string
		limit uint64 // 0: reported only
		runs  int    // the figure is the least of these
	}{
		{"wide", func(t *testing.T) string { return writeSpec(t, "wide.json", wideSpec(34, 1800, 40)) }, 512 << 20, 1},
		{"stripe.yaml", func(t *testing.T) string { return corpus.Path(t, "stripe.yaml") }, 125 << 20, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := c.path(t)
			peak := measureHeap(func() { stages(t, path) })
			for range c.runs - 1 {
				if p := measureHeap(func() { stages(t, path) }); p.live < peak.live {
					peak = p
				}
			}
			t.Logf("%s: peak live heap %d MiB, %d collections", c.name, peak.live>>20, peak.cycles)
			if c.limit > 0 && 2*peak.live > c.limit {
				t.Errorf("%s: a peak live heap of %d MiB grows to %d MiB at the default GOGC, more than %d MiB",
					c.name, peak.live>>20, 2*peak.live>>20, c.limit>>20)
			}
		})
	}
}
