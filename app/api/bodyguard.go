package api

import (
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// closeLinger is how long a connection closed with its request body unread stays open after
// the response, so the client reads the response before the close resets the connection
// (net/http waits the same 500 ms when it gives up on a large unread body).
const closeLinger = 500 * time.Millisecond

// guardBodies protects the server from request bodies that arrive slowly or not at all:
//   - a request with a body gets a read deadline from its size: BodyTimeout plus the size at
//     MinBodyRate (chunked bodies count as MaxBodyBytes), and its write deadline moves to that
//     deadline plus WriteTimeout, so a legitimate large upload is not cut by the write timeout;
//   - a body is read only by the handler, after authentication: a request refused before
//     (401, 404, 429, ...) never waits for its body;
//   - when the response is written and the body was not read to its end, the connection is
//     closed after the response instead of being drained (which would wait for the client).
func (s *Server) guardBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		s.setBodyDeadlines(rc, r.ContentLength)
		body := &trackedBody{ReadCloser: r.Body, rc: rc}
		r.Body = body
		gw := &guardWriter{ResponseWriter: w, body: body}
		next.ServeHTTP(gw, r)
		if !body.done.Load() {
			closeUnread(rc, gw)
		}
	})
}

// setBodyDeadlines sets the read deadline of a body of size n (-1: unknown) and moves the
// write deadline after it. Errors mean the writer cannot set deadlines (HTTP/2 streams
// handle their own, test recorders have none); the server's timeouts then apply.
func (s *Server) setBodyDeadlines(rc *http.ResponseController, n int64) {
	if s.cfg.BodyTimeout <= 0 || s.cfg.MinBodyRate <= 0 {
		return
	}
	if n < 0 || n > s.cfg.MaxBodyBytes {
		n = s.cfg.MaxBodyBytes // a larger body is refused at the limit anyway
	}
	deadline := time.Now().Add(s.cfg.BodyTimeout + time.Duration(n)*time.Second/time.Duration(s.cfg.MinBodyRate))
	_ = rc.SetReadDeadline(deadline)
	if s.cfg.WriteTimeout > 0 {
		_ = rc.SetWriteDeadline(deadline.Add(s.cfg.WriteTimeout))
	}
}

// closeUnread ends a connection whose request body is still (partly) unread, without reading
// it. A complete response is flushed and the connection closed after closeLinger; otherwise
// (HTTP/2, a response of unknown length) an expired read deadline makes the server close it
// at once instead of draining the body.
func closeUnread(rc *http.ResponseController, gw *guardWriter) {
	if gw.complete() && rc.Flush() == nil {
		if conn, buf, err := rc.Hijack(); err == nil {
			_ = buf.Flush()
			time.AfterFunc(closeLinger, func() { conn.Close() })
			return
		}
	}
	_ = rc.SetReadDeadline(time.Now())
}

// trackedBody notes when the handler has read the body to its end, and then lifts the body's
// read deadline: net/http keeps reading the connection in the background to notice a client
// that goes away, and an expired deadline there would cancel a handler still at work.
type trackedBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done.Swap(true) {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// guardWriter marks the response "Connection: close" when it starts before the body was
// read to its end, and remembers whether the response delimits itself.
type guardWriter struct {
	http.ResponseWriter
	body   *trackedBody
	status int
}

func (w *guardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		if !w.body.done.Load() {
			w.Header().Set("Connection", "close")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *guardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (deadlines, flushing, hijacking).
func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// complete says whether the response written so far is all of it and delimits itself, so
// the connection can be taken over once it is flushed.
func (w *guardWriter) complete() bool {
	if w.status == 0 {
		return false
	}
	if w.status == http.StatusNoContent || w.status == http.StatusNotModified {
		return true
	}
	return w.Header().Get("Content-Length") != ""
}
