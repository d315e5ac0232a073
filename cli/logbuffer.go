package cli

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logBufferSize is how much a logBuffer holds before it writes: about 150 request lines.
const logBufferSize = 32 << 10

// logFlushInterval is the longest a request line waits in a logBuffer.
const logFlushInterval = 100 * time.Millisecond

// logBuffer batches the request lines of `app serve` into one write every logFlushInterval
// (or every logBufferSize bytes), as nginx's access_log buffer= does. Written straight to
// stderr, the request line was one write system call per request: a tenth of a simple GET's
// CPU. Only request lines go through it; every other line (warnings, errors, start-up) is
// written at once, so a request line may come up to logFlushInterval after the lines its
// request logged. Close writes what is left; a kill -9 loses at most one interval of request
// lines.
type logBuffer struct {
	mu      sync.Mutex
	w       *bufio.Writer
	every   time.Duration
	pending *time.Timer // set while unwritten lines wait for it
	closed  bool
}

func newLogBuffer(w io.Writer, every time.Duration) *logBuffer {
	return &logBuffer{w: bufio.NewWriterSize(w, logBufferSize), every: every}
}

// Write keeps p (one whole line: slog writes each record with one call) for the next flush.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		n, err := b.w.Write(p)
		if err == nil {
			err = b.w.Flush()
		}
		return n, err
	}
	if b.w.Available() < len(p) {
		// A line is never split across two writes, so lines from other writers to the
		// same stderr do not land inside it.
		if err := b.w.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := b.w.Write(p)
	if b.pending == nil && b.w.Buffered() > 0 {
		b.pending = time.AfterFunc(b.every, b.flushLater)
	}
	return n, err
}

func (b *logBuffer) flushLater() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = nil
	b.w.Flush() // a failing stderr has nowhere to report to
}

// Close writes the lines still held; later lines are written at once.
func (b *logBuffer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.pending != nil {
		b.pending.Stop()
		b.pending = nil
	}
	return b.w.Flush()
}
