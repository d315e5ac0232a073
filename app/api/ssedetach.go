package api

import (
	"bytes"
	"context"
	"errors"
	"net/http/httputil"
	"os"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"wsapi/app"
	"wsapi/app/stream"
)

// Detached streams (docs/decisions/detached-streams.md). Once an HTTP/1.1 stream's headers
// and backlog are out, its connection is taken off net/http (hijacked) and the handler
// returns: net/http's buffers for the connection (4 KiB read, 4 KiB write, 2 KiB chunking),
// the request, its context and the goroutine of net/http's background read all go, and the
// deep stack of the handler with them. One goroutine of ours then serves the stream: it
// sleeps in a read of the connection, which answers when the client leaves (or sends bytes,
// which are dropped), when its deadline comes (the heartbeat), or when the hub wakes it
// (stream.Hub.Wake: an item queued, or the subscription ended). Frames go out in the chunked
// encoding the headers announced. HTTP/2, and writers that cannot be hijacked, keep the
// handler's pump.

// detachedStreams counts the streams served off net/http, so a shutdown can wait for them
// (net/http's Shutdown does not wait for hijacked connections).
type detachedStreams struct{ open atomic.Int64 }

// register reports the count as wsapi_http_streams_detached: a detached stream's request
// has ended for net/http, so wsapi_http_requests_in_flight no longer counts it.
func (d *detachedStreams) register(m *Metrics) {
	if m == nil {
		return
	}
	_ = m.Registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "http_streams_detached",
		Help: "Event streams open and served off net/http (their request has ended for the in-flight gauge)."},
		func() float64 { return float64(d.open.Load()) }))
}

// Detached is the number of open streams served off net/http (for tests and metrics).
func (s *Server) Detached() int { return int(s.detached.open.Load()) }

// WaitStreams waits until every detached stream has ended (the hub's Close ends them) or ctx
// ends: a shutdown calls it after the server's own drain. It looks at the count every 10 ms
// rather than on a WaitGroup, which a handler still detaching after a timed-out drain could
// not safely join.
func (s *Server) WaitStreams(ctx context.Context) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for s.detached.open.Load() > 0 {
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// serveStream writes the subscription's live items until the stream ends, then runs end
// (which unsubscribes and frees the stream's slots): on a connection detached from net/http
// when it can be, else in the handler. Only an HTTP/1.1 answer is chunked, which the frames of
// a detached stream continue: HTTP/1.0's body runs to the close, HTTP/2 has no Hijack.
func (s *Server) serveStream(rq *Request, w *sseWriter, sub *stream.Subscriber, st *sent, end func()) {
	if rq.R.ProtoMajor == 1 && rq.R.ProtoMinor == 1 && w.detach() {
		d := &detachedStream{w: w, sub: sub, st: st, every: s.cfg.StreamHeartbeat}
		s.cfg.Hub.Wake(sub, d.wake)
		s.detached.open.Add(1)
		go s.runDetached(d, end)
		return
	}
	defer end()
	defer w.finish() // before end: its Unsubscribe's cutOff then leaves the writer alone
	s.pump(rq, w, sub, st)
}

// detach takes the stream's connection from net/http once what is written is flushed;
// false when it cannot (HTTP/2, a writer without Hijack, the client gone, the stream cut).
func (w *sseWriter) detach() bool {
	if w.flush() != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cut {
		return false
	}
	// The bufio.ReadWriter is net/http's own buffers: bytes the client sent after its request
	// are dropped like those that come later, and the writes go out unbuffered, one a flush.
	conn, _, err := w.rc.Hijack()
	if err != nil {
		return false
	}
	// Hijack lifted the server's deadlines; a write still gets sseWriteTimeout (flush).
	w.conn, w.w, w.rc = conn, nil, nil
	return true
}

// writeChunk sends out as one chunk of the response's chunked body, in one write.
func (w *sseWriter) writeChunk() error {
	if len(w.out) == 0 {
		return nil
	}
	var chunk bytes.Buffer // not kept: an idle stream holds no buffer
	chunk.Grow(len(w.out) + 16)
	_, _ = httputil.NewChunkedWriter(&chunk).Write(w.out) // a bytes.Buffer does not fail
	_, err := w.conn.Write(chunk.Bytes())
	return err
}

// detachedStream is what the goroutine of a detached stream holds.
type detachedStream struct {
	w     *sseWriter
	sub   *stream.Subscriber
	st    *sent
	every time.Duration // the heartbeat
	read  [16]byte      // what the client sends after its request, dropped
}

// wake interrupts the stream's read: an item is queued. Under the hub's lock; it does not block.
func (d *detachedStream) wake() { _ = d.w.conn.SetReadDeadline(time.Now()) }

// runDetached serves a detached stream until it ends, then closes its connection and runs
// end. A panic ends this stream alone.
func (s *Server) runDetached(d *detachedStream, end func()) {
	defer s.detached.open.Add(-1)
	err := app.Safely(func() error { d.serve(); return nil })
	_ = d.w.conn.Close()
	end()
	if err != nil {
		app.LogFailure(s.log, "event stream", err)
	}
}

// serve writes what is queued, then sleeps in a read of the connection until the hub wakes
// it, the heartbeat is due or the client leaves. The frames that write are called from here
// and return before the read, so the goroutine sleeps on a shallow stack.
func (d *detachedStream) serve() {
	conn := d.w.conn
	next := time.Now().Add(d.every)
	for {
		if !d.drain() {
			return
		}
		_ = conn.SetReadDeadline(next)
		// An item queued (or the end) before the deadline above may have woken a read that
		// was not yet waiting: look again before sleeping.
		if len(d.sub.C) > 0 || d.w.isCut() {
			continue
		}
		if _, err := conn.Read(d.read[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return // the client left
		}
		if now := time.Now(); !now.Before(next) {
			if d.w.ping() != nil {
				return
			}
			next = now.Add(d.every)
		}
	}
}

// drain writes every queued item; false once the subscription has ended or a write failed.
func (d *detachedStream) drain() bool {
	for {
		select {
		case it, ok := <-d.sub.C:
			if !ok || writeQueued(d.w, d.st, d.sub, *it) != nil {
				return false
			}
		default:
			return !d.w.isCut()
		}
	}
}
