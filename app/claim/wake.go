package claim

import (
	"slices"
	"time"
)

// wakeSlack is how much later than asked a NudgeAfter may come, so that requests close
// together share one wake (never earlier than asked: the work would not be due yet).
const wakeSlack = 5 * time.Millisecond

// maxWakeAfter: beyond it a tick's lateness is nothing beside the wait, and the ticks serve.
const maxWakeAfter = time.Hour

// NudgeAfter asks for a claim once d has passed: work queued now that is due only then (a
// run waits out its debounce) starts when it is due rather than at the first tick after it.
// With the run worker's 250 ms tick, a lone visitor's answer began on average 125 ms after
// the debounce (bench/widget at 4 messages a second: p50 143 ms); a busier server hid it,
// every new message nudging. One timer serves every request, for the earliest.
func (l *Loop) NudgeAfter(d time.Duration) {
	if d <= 0 {
		l.Nudge()
		return
	}
	if d > maxWakeAfter {
		return
	}
	l.init()
	at := time.Now().Add(d)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	i, _ := slices.BinarySearchFunc(l.wakes, at, func(w, t time.Time) int { return w.Compare(t) })
	switch {
	case i < len(l.wakes) && l.wakes[i].Sub(at) <= wakeSlack: // a wake soon after serves
		return
	case i > 0 && at.Sub(l.wakes[i-1]) <= wakeSlack: // the one just before moves to this
		l.wakes[i-1] = at
	default:
		l.wakes = slices.Insert(l.wakes, i, at)
	}
	l.armLocked()
}

// armLocked sets the timer for the earliest wake. Holds mu.
func (l *Loop) armLocked() {
	if len(l.wakes) == 0 {
		return
	}
	if l.wakeTimer == nil {
		l.wakeTimer = time.AfterFunc(time.Until(l.wakes[0]), l.woken)
		return
	}
	l.wakeTimer.Reset(time.Until(l.wakes[0]))
}

// woken drops the wakes that are due and nudges the loop.
func (l *Loop) woken() {
	l.mu.Lock()
	now := time.Now()
	n := 0
	for n < len(l.wakes) && !l.wakes[n].After(now) {
		n++
	}
	l.wakes = slices.Delete(l.wakes, 0, n)
	if !l.stopped {
		l.armLocked()
	}
	l.mu.Unlock()
	if n > 0 {
		l.Nudge()
	}
}

// stopWakesLocked ends the timer when the loop stops. Holds mu.
func (l *Loop) stopWakesLocked() {
	if l.wakeTimer != nil {
		l.wakeTimer.Stop()
	}
	l.wakes = nil
}
