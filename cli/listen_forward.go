package cli

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"wsapi/app"
	"wsapi/app/webhook"
)

// localClient is a plain HTTP client for the forwards, with a timeout per delivery. It is on
// purpose NOT webhook.NewHTTPClient: that client refuses loopback and private addresses (the
// SSRF guard), and listen's whole job is to reach a receiver on this machine
// (http://localhost:3000/hooks). The URL is the developer's own flag, not a customer's input,
// so there is nothing to guard against. Like the dispatcher it ignores proxies (a proxy would
// not reach localhost) and does not follow redirects (a 3xx is a failed delivery there too).
func localClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
			MaxIdleConnsPerHost: 4,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// forwardLine is what listen prints for one event (a JSON line with --json).
type forwardLine struct {
	Time      string  `json:"time"`
	StreamID  string  `json:"stream_id"`
	EventID   string  `json:"event_id"`
	Type      string  `json:"type"`
	Status    int     `json:"status,omitempty"`
	LatencyMs float64 `json:"latency_ms"`
	Error     string  `json:"error,omitempty"`
}

// forward POSTs one stream event to the local URL as a webhook delivery and prints its line.
// A failed delivery (the receiver down, a 500) is printed and not retried: the stream goes
// on, and --replay-from resends it. Only the end of listen itself stops the stream here.
func (l *listener) forward(ctx context.Context, ev sseEvent) error {
	e := app.Event{ID: listenEventID(l.orgID, ev.id), Type: ev.typ, OrgID: l.orgID,
		CreatedAt: app.At(time.Now()), Data: json.RawMessage(ev.data)}
	body, err := e.Body()
	if err != nil {
		return err
	}
	job := app.Job{URL: l.forwardTo, Secret: l.secret, EventID: e.ID, EventType: e.Type, Body: body, Attempt: 1}
	req, err := webhook.NewRequest(ctx, job, time.Now().Unix())
	if err != nil {
		return err
	}
	line := forwardLine{StreamID: ev.id, EventID: e.ID, Type: e.Type}
	start := time.Now()
	res, err := l.localHTTP.Do(req)
	line.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
	line.Time = app.FormatTime(start)
	if ctx.Err() != nil {
		return ctx.Err() // stopped mid-delivery: not forwarded, so the position stays before it
	}
	if err != nil {
		line.Error = err.Error()
	} else {
		line.Status = res.StatusCode
		_, _ = io.CopyN(io.Discard, res.Body, webhook.MaxResponseBody)
		res.Body.Close()
	}
	return l.printLine(line)
}

func (l *listener) printLine(f forwardLine) error {
	if l.env.json {
		return json.NewEncoder(l.env.stdout).Encode(f)
	}
	result := strconv.Itoa(f.Status)
	if f.Error != "" {
		result = "ERR " + f.Error
	}
	_, err := fmt.Fprintf(l.env.stdout, "%s  %-8s %-22s %s  -> %s  %.1f ms\n",
		f.Time, f.StreamID, f.Type, f.EventID, result, f.LatencyMs)
	return err
}

// listenEventID is the envelope id of a forwarded event: the stream carries no webhook event
// id, so listen derives one from the organization and the stream id. It has the shape of a
// real id (evt_ + 20 base62) and stays the same for every resend of that stream event, so a
// receiver that drops repeated ids treats a --replay-from as the repeat it is.
func listenEventID(orgID, streamID string) string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte("app listen\x00" + orgID + "\x00" + streamID))
	id := make([]byte, 20)
	for i := range id {
		id[i] = base62[int(sum[i])%62]
	}
	return "evt_" + string(id)
}
