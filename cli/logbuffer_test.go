package cli

import (
	"strings"
	"testing"
	"time"
)

// writes hands over each Write as one string, so a test sees how lines were grouped.
type writes chan string

func (w writes) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

func (w writes) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-w:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("nothing written")
		return ""
	}
}

func TestLogBufferWritesItsLinesTogetherAfterItsInterval(t *testing.T) {
	out := make(writes, 16)
	b := newLogBuffer(out, 20*time.Millisecond)
	b.Write([]byte("one\n"))
	b.Write([]byte("two\n"))
	if len(out) != 0 {
		t.Fatalf("written before the interval: %q", <-out)
	}
	if got := out.next(t); got != "one\ntwo\n" {
		t.Fatalf("first write %q, want both lines in one", got)
	}
	b.Write([]byte("three\n")) // the next line starts the next interval
	if got := out.next(t); got != "three\n" {
		t.Fatalf("second write %q", got)
	}
}

func TestLogBufferNeverSplitsALineAndCloseWritesTheRest(t *testing.T) {
	out := make(writes, 16)
	b := newLogBuffer(out, time.Hour)
	line := strings.Repeat("x", 1000) + "\n"
	n := logBufferSize/len(line) + 1 // one more than fits
	for range n {
		b.Write([]byte(line))
	}
	if got := out.next(t); got != strings.Repeat(line, n-1) {
		t.Fatalf("a full buffer wrote %d bytes, want the %d whole lines that fit", len(got), n-1)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.next(t); got != line {
		t.Fatalf("Close wrote %d bytes, want the last line", len(got))
	}
	b.Write([]byte("late\n"))
	if got := out.next(t); got != "late\n" {
		t.Fatalf("after Close %q, want the line at once", got)
	}
}
