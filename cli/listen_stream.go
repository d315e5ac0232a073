package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"wsapi/app"
)

// Reconnection: the first retry comes quickly (a server restart takes about a second), then
// the wait doubles up to listenMaxBackoff, and a connection that worked resets it.
const (
	listenMinBackoff = 250 * time.Millisecond
	listenMaxBackoff = 10 * time.Second
	// listenIdleTimeout ends a stream that sent nothing, not even the server's heartbeat
	// (events.stream_heartbeat, 15 s), for this long: the connection is dead without having
	// said so (a laptop that slept, a proxy that dropped it), so listen reconnects.
	listenIdleTimeout = 90 * time.Second
)

// listener is one `app listen` session.
type listener struct {
	listenOptions
	env    *env
	orgID  string
	secret string // this session's signing secret, whsec_...
	// lastID is the stream position of the last event forwarded (or position received): a
	// reconnect sends it as Last-Event-ID, so nothing is lost and nothing is sent twice.
	lastID       string
	reconnecting bool         // a stream was open before: say when it opens again
	ready        bool         // the banner is out: printed once the first stream was accepted
	apiHTTP      *http.Client // the stream and the organization lookup
	localHTTP    *http.Client // the forwards
}

func newListener(o listenOptions, e *env) (*listener, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	l := &listener{listenOptions: o, env: e, secret: app.SecretPrefix + app.RandomBase62(43)}
	l.apiHTTP = &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}}
	l.localHTTP = localClient(o.timeout)
	l.apiHTTP.Timeout = 0 // a stream is open for as long as listen runs; idleness is watched instead
	if o.replayFrom >= 0 {
		// The flag names the first event to resend; Last-Event-ID names the last one held.
		l.lastID = strconv.FormatInt(max(o.replayFrom-1, 0), 10)
	}
	return l, nil
}

// run resolves the organization, then streams and forwards until ctx ends (Ctrl-C),
// reconnecting whenever the stream breaks; the first stream the server accepts prints the
// session's secret.
func (l *listener) run(ctx context.Context) error {
	orgID, err := l.resolveOrg(ctx)
	if err != nil {
		return err
	}
	l.orgID = orgID
	wait := listenMinBackoff
	for {
		connected, err := l.stream(ctx)
		if ctx.Err() != nil {
			fmt.Fprintln(l.env.stderr, "listen: stopped")
			return nil
		}
		if fatal(err) {
			return err
		}
		if connected {
			wait = listenMinBackoff
		}
		fmt.Fprintf(l.env.stderr, "listen: %v; reconnecting in %s (after id %s)\n", err, wait, orDash(l.lastID))
		select {
		case <-ctx.Done():
			fmt.Fprintln(l.env.stderr, "listen: stopped")
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, listenMaxBackoff)
	}
}

func (l *listener) banner() error {
	info := map[string]any{"org_id": l.orgID, "api": l.api, "forward_to": l.forwardTo,
		"secret": l.secret, "events": l.events}
	text := fmt.Sprintf("Ready: forwarding the events of %s from %s to %s\n"+
		"Webhook signing secret of this session: %s\n", l.orgID, l.api, l.forwardTo, l.secret)
	if l.replayFrom >= 0 {
		text += fmt.Sprintf("Resending the stored events from id %d on\n", l.replayFrom)
	}
	if l.env.json { // one object per line, like the event lines that follow
		return json.NewEncoder(l.env.stdout).Encode(info)
	}
	_, err := fmt.Fprint(l.env.stdout, text)
	return err
}

// stream opens the event stream once and forwards its events until it breaks. connected
// tells whether the server accepted the stream (so the backoff starts over).
func (l *listener) stream(ctx context.Context) (connected bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	q := url.Values{}
	if len(l.events) > 0 {
		q.Set("types", strings.Join(l.events, ","))
	}
	u := l.api + "/orgs/" + url.PathEscape(l.org) + "/events/stream"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := l.request(ctx, u)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if l.lastID != "" {
		req.Header.Set("Last-Event-ID", l.lastID)
	}
	res, err := l.apiHTTP.Do(req)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return false, answerError(res)
	}
	if !l.ready {
		// "Ready" once the server holds the subscription (it subscribes before it answers
		// 200), so a change made after the banner always reaches this session. Printed
		// before the stream was open, a change made right after it could come first and be
		// lost (it failed TestListenForwardsSignedDeliveries on a loaded machine).
		if err := l.banner(); err != nil {
			return true, err
		}
		l.ready = true
	}
	if l.reconnecting {
		fmt.Fprintf(l.env.stderr, "listen: connected again, resuming after id %s\n", orDash(l.lastID))
	}
	l.reconnecting = true
	idle := time.AfterFunc(listenIdleTimeout, cancel)
	defer idle.Stop()
	err = readSSE(res.Body, func() { idle.Reset(listenIdleTimeout) }, func(ev sseEvent) error {
		idle.Stop() // a slow local receiver (--timeout) is not a silent stream
		defer idle.Reset(listenIdleTimeout)
		return l.handle(ctx, ev)
	})
	if err == nil { // the server ended the stream: a shutdown, or this client fell behind
		err = errors.New("the server closed the stream")
	}
	return true, fmt.Errorf("stream ended: %w", err)
}

// handle forwards a dispatched event; an id-only block just moves the position.
func (l *listener) handle(ctx context.Context, ev sseEvent) error {
	if ev.hasData && ev.typ != "" {
		if err := l.forward(ctx, ev); err != nil {
			return err
		}
	}
	if ev.hasID {
		l.lastID = ev.id
	}
	return nil
}

// request is a GET with the key.
func (l *listener) request(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	return req, nil
}

// getJSON GETs an API path into v.
func (l *listener) getJSON(ctx context.Context, path string, v any) error {
	req, err := l.request(ctx, l.api+path)
	if err != nil {
		return err
	}
	c := *l.apiHTTP
	c.Timeout = 30 * time.Second
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return answerError(res)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

// answerError reads the API's error body ({"error": {"message", "fields"}}) into an apiError.
func answerError(res *http.Response) error {
	var body struct {
		Error struct {
			Message string            `json:"message"`
			Fields  map[string]string `json:"fields"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		msg = body.Error.Message
		for f, why := range body.Error.Fields {
			msg += "; " + f + ": " + why
		}
	}
	return &apiError{status: res.StatusCode, msg: msg}
}

// sseEvent is one block of an event stream.
type sseEvent struct {
	id, typ, data  string
	hasID, hasData bool
}

// readSSE parses Server-Sent Events (the subset the API writes: id, event, data, comments)
// and calls fn for each block that has an id or data; alive is called for every line,
// heartbeats included. It returns nil when the stream ends cleanly.
func readSSE(r io.Reader, alive func(), fn func(sseEvent) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20) // one event is one line of JSON: a large message
	var ev sseEvent
	for sc.Scan() {
		alive()
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if ev.hasID || ev.hasData {
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev = sseEvent{}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id, ev.hasID = value, true
		case "event":
			ev.typ = value
		case "data":
			if ev.hasData {
				ev.data += "\n"
			}
			ev.data, ev.hasData = ev.data+value, true
		}
	}
	return sc.Err()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
