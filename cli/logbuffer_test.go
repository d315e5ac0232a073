package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while the flush timer writes into it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogBufferHoldsLinesUntilItsInterval(t *testing.T) {
	var out lockedBuffer
	b := newLogBuffer(&out, 20*time.Millisecond)
	b.Write([]byte("one\n"))
	b.Write([]byte("two\n"))
	if out.String() != "" {
		t.Fatalf("written before the interval: %q", out.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "one\ntwo\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after the interval: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Write([]byte("three\n")) // a new interval starts with the next line
	for out.String() != "one\ntwo\nthree\n" {
		if time.Now().After(deadline) {
			t.Fatalf("second interval: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLogBufferNeverSplitsALineAndCloseWritesTheRest(t *testing.T) {
	var out lockedBuffer
	b := newLogBuffer(&out, time.Hour)
	line := strings.Repeat("x", 1000) + "\n"
	n := logBufferSize/len(line) + 1 // one more than fits
	for range n {
		b.Write([]byte(line))
	}
	if got := out.String(); len(got) != (n-1)*len(line) || !strings.HasSuffix(got, "\n") {
		t.Fatalf("a full buffer wrote %d bytes, want the %d whole lines that fit", len(got), n-1)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); len(got) != n*len(line) {
		t.Fatalf("Close left %d of %d bytes", n*len(line)-len(got), n*len(line))
	}
	b.Write([]byte("late\n")) // after Close: at once
	if !strings.HasSuffix(out.String(), "late\n") {
		t.Fatal("a line after Close waits")
	}
}
