package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// event is one dispatched Server-Sent Event with the time it was read.
type event struct {
	ID, Type, Data string
	At             time.Time
}

// sseClient is an open event stream whose events arrive on Events; the channel closes when
// the stream ends.
type sseClient struct {
	Events <-chan *event // pointers: a 4096-deep queue of values per client made each send touch fresh memory
	cancel context.CancelFunc
	// timer bounds each wait of next; one per client, reset per call: a timer made per
	// event was a tenth of the fan-out phase's CPU, the bench's own, not the service's.
	timer *time.Timer
}

// openStream opens GET url with token as an event stream.
func openStream(client *http.Client, url, token string) (*sseClient, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		return nil, fmt.Errorf("stream %s: status %d: %s", url, res.StatusCode, b)
	}
	ch := make(chan *event, 4096)
	go read(res.Body, ch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	return &sseClient{Events: ch, cancel: cancel, timer: timer}, nil
}

// Close ends the stream.
func (c *sseClient) Close() { c.cancel() }

// next answers the next event of one of types (others are skipped), or an error after
// timeout or when the stream ended.
func (c *sseClient) next(timeout time.Duration, types ...string) (event, error) {
	c.timer.Reset(timeout)
	defer c.timer.Stop()
	deadline := c.timer.C
	for {
		select {
		case ev, ok := <-c.Events:
			if !ok {
				return event{}, fmt.Errorf("the stream ended")
			}
			for _, t := range types {
				if ev.Type == t {
					return *ev, nil
				}
			}
		case <-deadline:
			return event{}, fmt.Errorf("no %v event within %s", types, timeout)
		}
	}
}

// read parses the stream: id, event and data lines, dispatched on a blank line (comments
// and id-only blocks are dropped; data here is always one line).
func read(body io.ReadCloser, ch chan<- *event) {
	defer close(ch)
	defer body.Close()
	br := bufio.NewReaderSize(body, 64<<10)
	var ev event
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if ev.Data != "" {
				sent := ev
				sent.At = time.Now()
				ch <- &sent
			}
			ev = event{}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Type = value
		case "data":
			ev.Data = value
		}
	}
}
