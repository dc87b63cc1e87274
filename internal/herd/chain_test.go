package herd

import (
	"math"
	"reflect"
	"testing"
)

func chainRows(t *testing.T, depth int, shares ...float64) map[string]ChainRow {
	t.Helper()
	rows, err := RunChain(ChainConfig{OutageConfig: DefaultOutage(), Depth: depth}, shares)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ChainRow{}
	for _, r := range rows {
		byName[r.Setup.Name] = r
	}
	if len(byName) != len(ChainSetups()) {
		t.Fatalf("%d rows, want %d", len(byName), len(ChainSetups()))
	}
	return byName
}

// In a total outage, layers that all retry multiply: Attempts^depth at the store for each
// user call. One retry layer keeps it at one layer's Attempts, and with the default budgets
// at ≤ 1.2×; a user's client that ignores the signal brings back its own factor.
func TestChainTotalOutage(t *testing.T) {
	for depth := 1; depth <= 3; depth++ {
		rows := chainRows(t, depth, 1)
		load := func(name string) float64 { return rows[name].Results[0].StoreLoad }
		if got, want := load("every layer retries, no budget"), math.Pow(4, float64(depth)); got != want {
			t.Errorf("depth %d, every layer retries: store load %v, want %v", depth, got, want)
		}
		if got := load("one retry layer, no budget"); got != 4 {
			t.Errorf("depth %d, one retry layer: store load %v, want 4", depth, got)
		}
		if got := load("one retry layer, default budgets"); got > 1.2 {
			t.Errorf("depth %d, one retry layer with budgets: store load %v, want ≤ 1.2", depth, got)
		}
		if depth > 1 { // at depth 1 the foreign client is the only one, with no budget
			if got := load("same, user's client foreign, honours the signal"); got > 1.2 {
				t.Errorf("depth %d, a foreign client that honours the signal: store load %v, want ≤ 1.2", depth, got)
			}
			if got := load("same, user's client foreign, ignores the signal"); got < 4 {
				t.Errorf("depth %d, a foreign client that ignores the signal: store load %v, want its 4 attempts or more", depth, got)
			}
			if got := load("every layer retries, default budgets"); got <= load("one retry layer, default budgets") {
				t.Errorf("depth %d: budgets in every layer (%v) do as well as one retry layer", depth, got)
			}
		}
		for name, r := range rows {
			if res := r.Results[0]; res.Failed != res.Calls || res.Calls != 600 {
				t.Errorf("depth %d, %s: %+v, want all 600 calls failed", depth, name, res)
			}
		}
	}
}

// In a partial outage one retry layer fails the user calls a single client fails: the
// chain adds no failures, and the store's load stays a single client's.
func TestChainPartialOutage(t *testing.T) {
	single := chainRows(t, 1, 0.5)["one retry layer, default budgets"].Results[0]
	chain := chainRows(t, 3, 0.5)
	one := chain["one retry layer, default budgets"].Results[0]
	if math.Abs(one.FailedShare-single.FailedShare) > 0.03 {
		t.Errorf("50%% failing: a chain of 3 fails %.3f of calls, a single client %.3f", one.FailedShare, single.FailedShare)
	}
	if one.StoreLoad > 2.1 {
		t.Errorf("50%% failing: store load %v, want a single layer's ≤ 2", one.StoreLoad)
	}
	again, _ := RunChain(ChainConfig{OutageConfig: DefaultOutage(), Depth: 3}, []float64{0.5})
	if !reflect.DeepEqual(again[3].Results[0], one) {
		t.Error("the same seed gave different results")
	}
}

func TestChainValidate(t *testing.T) {
	for _, c := range []ChainConfig{
		{OutageConfig: DefaultOutage(), Depth: 0},
		{OutageConfig: DefaultOutage(), Depth: MaxChainDepth + 1},
		{OutageConfig: func() OutageConfig { o := DefaultOutage(); o.Rate = 1000; return o }(), Depth: 5},
		{OutageConfig: func() OutageConfig { o := DefaultOutage(); o.Attempts = 0; return o }(), Depth: 2},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v: no error", c)
		}
		if _, err := RunChain(c, ChainShares); err == nil {
			t.Errorf("RunChain(%+v): no error", c)
		}
	}
}
