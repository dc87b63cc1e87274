package herd

import "time"

// An event of a simulation happens at a time, and comes after the events of that time with
// a lower tie-breaker, so that the order is deterministic.
type event interface {
	order() (at time.Duration, tie int64)
}

// timeline is a min-heap of events by their order, for container/heap.
type timeline[E event] []E

func (q timeline[E]) Len() int { return len(q) }
func (q timeline[E]) Less(i, j int) bool {
	a, ta := q[i].order()
	b, tb := q[j].order()
	if a != b {
		return a < b
	}
	return ta < tb
}
func (q timeline[E]) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timeline[E]) Push(x any)   { *q = append(*q, x.(E)) }
func (q *timeline[E]) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
