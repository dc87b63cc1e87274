package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// An id is first once; while in progress a repeat is ErrDeliveryInProgress; once complete
// a repeat is not first; released, it is first again; expired, too.
func TestMemoryDedupeStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := runtime.NewMemoryDedupeStore(0)
		reserve := func(id string) (bool, error) { return s.Reserve(ctx, id, time.Hour) }
		if first, err := reserve("a"); !first || err != nil {
			t.Fatalf("new id: %v %v", first, err)
		}
		if first, err := reserve("a"); first || !errors.Is(err, runtime.ErrDeliveryInProgress) {
			t.Errorf("in progress: %v %v", first, err)
		}
		s.Complete(ctx, "a")
		if first, err := reserve("a"); first || err != nil {
			t.Errorf("complete: %v %v", first, err)
		}
		reserve("b")
		s.Release(ctx, "b")
		if first, _ := reserve("b"); !first {
			t.Error("released: not first")
		}
		time.Sleep(time.Hour)
		if first, err := reserve("a"); !first || err != nil {
			t.Errorf("an hour later: %v %v", first, err)
		}
		if n := s.Len(); n != 1 {
			t.Errorf("%d ids held, want a alone: b expired", n)
		}
	})
}

// Full, the store pushes out the oldest completed id, never one in progress; full of ids in
// progress it refuses.
func TestMemoryDedupeStoreBound(t *testing.T) {
	ctx := context.Background()
	s := runtime.NewMemoryDedupeStore(3)
	for _, id := range []string{"a", "b", "c"} {
		s.Reserve(ctx, id, time.Hour)
	}
	s.Complete(ctx, "b")
	s.Complete(ctx, "c")
	if first, err := s.Reserve(ctx, "d", time.Hour); !first || err != nil {
		t.Fatalf("full: %v %v", first, err)
	}
	if first, _ := s.Reserve(ctx, "b", time.Hour); !first {
		t.Error("b, the oldest completed, was not pushed out")
	}
	if _, err := s.Reserve(ctx, "a", time.Hour); !errors.Is(err, runtime.ErrDeliveryInProgress) {
		t.Errorf("a, in progress, was pushed out: %v", err)
	}
	if _, err := s.Reserve(ctx, "e", time.Hour); !errors.Is(err, runtime.ErrDedupeStoreFull) {
		t.Errorf("full of ids in progress: %v", err)
	}
	if s.Len() != 3 {
		t.Errorf("%d ids held, bound 3", s.Len())
	}
}

// BenchmarkMemoryDedupeStore reports the memory of a full default store, per id.
func BenchmarkMemoryDedupeStore(b *testing.B) {
	ctx := context.Background()
	ids := make([]string, runtime.DefaultDedupeIDs)
	for i := range ids {
		ids[i] = fmt.Sprintf("msg_2KWPBgLlAfxdpx2AI%09d", i)
	}
	for b.Loop() {
		s := runtime.NewMemoryDedupeStore(0)
		for _, id := range ids {
			s.Reserve(ctx, id, time.Hour)
			s.Complete(ctx, id)
		}
	}
}
