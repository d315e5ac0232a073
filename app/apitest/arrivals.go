package apitest

import (
	"sync"
	"testing"
	"time"
)

// arrivals is what a local server got (a receiver's requests, a sink's mails), in order of
// arrival: a test reads a copy, or waits until enough have come.
type arrivals[T any] struct {
	mu     sync.Mutex
	items  []T
	signal chan struct{} // one send per arrival, so a waiter reads again
}

// newArrivals holds up to buffer arrivals that no one has waited for yet without blocking.
func newArrivals[T any](buffer int) *arrivals[T] {
	return &arrivals[T]{signal: make(chan struct{}, buffer)}
}

func (a *arrivals[T]) add(v T) {
	a.mu.Lock()
	a.items = append(a.items, v)
	a.mu.Unlock()
	a.signal <- struct{}{}
}

// all is a copy of what arrived so far.
func (a *arrivals[T]) all() []T {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]T(nil), a.items...)
}

// wait blocks until n have arrived in all and answers them; after timeout it fails the test
// with "<who>: <count> <unit> after <timeout>, want <n>".
func (a *arrivals[T]) wait(t testing.TB, n int, timeout time.Duration, who, unit string) []T {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := a.all(); len(got) >= n {
			return got
		}
		select {
		case <-a.signal:
		case <-deadline:
			t.Fatalf("%s: %d %s after %s, want %d", who, len(a.all()), unit, timeout, n)
		}
	}
}
