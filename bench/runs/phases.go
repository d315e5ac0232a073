package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"wsapi/bench/internal/measure"
)

// throughputResult is what the throughput phase measured.
type throughputResult struct {
	runs, failed int
	span, post   time.Duration
	cpu          time.Duration
}

// throughput posts one contact message to each chat from o.posters clients and waits, on
// the organization's stream, for every run to reach its final state.
func (b *bench) throughput(chats []string) (throughputResult, error) {
	var r throughputResult
	org, err := openStream(b.client, b.base+"/events/stream?types=message.updated", b.token)
	if err != nil {
		return r, err
	}
	defer org.Close()
	cpu := measure.CPUTime()
	start := time.Now()
	posted := make(chan error, 1)
	go func() {
		posted <- parallel(len(chats), b.o.posters, func(i int) error { return b.say(chats[i], fmt.Sprintf("tp-%d", i)) })
		r.post = time.Since(start)
	}()
	done := map[string]bool{}
	var last time.Time
	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	for len(done) < len(chats) {
		select {
		case err := <-posted:
			if err != nil {
				return r, err
			}
			continue
		case <-progress.C:
			fmt.Fprintf(os.Stderr, "  %d/%d runs finished after %s\n", len(done), len(chats), time.Since(start).Round(time.Millisecond))
			continue
		default:
		}
		ev, err := org.next(time.Minute, "message.updated")
		if err != nil {
			return r, fmt.Errorf("throughput: %d of %d runs finished: %w", len(done), len(chats), err)
		}
		var m runMessage
		if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
			return r, err
		}
		if m.final() && !done[m.ChatID] {
			done[m.ChatID] = true
			if m.Status != "COMPLETED" {
				r.failed++
			}
			last = ev.At
		}
	}
	r.runs, r.span, r.cpu = len(chats), last.Sub(start), measure.CPUTime()-cpu
	return r, nil
}

// firstToken runs one run at a time, each watched by a fresh chat stream, and measures from
// the fake flushing its first chunk to the client reading the first delta.
func (b *bench) firstToken(chats []string) (t tally, err error) {
	t = tally{what: "first token: fake's first chunk -> SSE client's first delta"}
	defer t.timeCPU()()
	for i, chat := range chats {
		s, err := openStream(b.client, b.base+"/chats/"+chat+"/stream", b.token)
		if err != nil {
			return t, err
		}
		if _, err := s.next(5*time.Second, "sync"); err != nil {
			return t, err
		}
		marker := fmt.Sprintf("ft-%d", i)
		if err := b.say(chat, marker); err != nil {
			return t, err
		}
		first, err := s.next(10*time.Second, "message.delta")
		if err != nil {
			return t, err
		}
		if err := waitFinal(s); err != nil {
			return t, err
		}
		s.Close()
		sent := b.fake.sentTimes(marker)
		if len(sent) == 0 {
			return t, fmt.Errorf("the fake has no record of request %s", marker)
		}
		t.lat = append(t.lat, first.At.Sub(sent[0]))
	}
	return t, nil
}

// waitFinal reads until the run's message.updated with its final state.
func waitFinal(s *sseClient) error {
	for {
		ev, err := s.next(30*time.Second, "message.updated")
		if err != nil {
			return err
		}
		var m runMessage
		if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
			return err
		}
		if m.final() {
			if m.Status != "COMPLETED" {
				return fmt.Errorf("run ended %s", m.Status)
			}
			return nil
		}
	}
}

// fanOut has o.watchers clients watch one chat through o.fanRuns runs; each client must
// read the whole answer of every run, and each chunk's lag is from the fake flushing it to
// the client reading the delta that holds it.
func (b *bench) fanOut(chat string) (t tally, err error) {
	t = tally{what: fmt.Sprintf("fan-out: chunk -> each of %d clients", b.o.watchers)}
	defer t.timeCPU()()
	clients := make([]*sseClient, b.o.watchers)
	for i := range clients {
		s, err := openStream(b.client, b.base+"/chats/"+chat+"/stream", b.token)
		if err != nil {
			return t, err
		}
		defer s.Close()
		if _, err := s.next(5*time.Second, "sync"); err != nil {
			return t, err
		}
		clients[i] = s
	}
	want := answer(b.o.tokens)
	for r := range b.o.fanRuns {
		marker := fmt.Sprintf("fan-%d", r)
		got := make([][]event, len(clients))
		errs := make([]error, len(clients))
		var wg sync.WaitGroup
		for i, c := range clients {
			wg.Go(func() { got[i], errs[i] = readRun(c) })
		}
		if err := b.say(chat, marker); err != nil {
			return t, err
		}
		wg.Wait()
		sent := b.fake.sentTimes(marker)
		for i, evs := range got {
			if errs[i] != nil {
				return t, fmt.Errorf("fan-out client %d: %w", i, errs[i])
			}
			var text strings.Builder
			for _, ev := range evs {
				var d struct {
					Offset int
					Text   string
				}
				_ = json.Unmarshal([]byte(ev.Data), &d)
				text.WriteString(d.Text)
				// A delta may hold several chunks (the service joins the pieces queued for a
				// watcher that fell behind): each chunk's lag counts, from its own flush.
				end := d.Offset + utf8.RuneCountInString(d.Text)
				for k := d.Offset / tokenRunes; k*tokenRunes < end; k++ {
					t.lat = append(t.lat, ev.At.Sub(sent[k]))
				}
			}
			if text.String() != want {
				return t, fmt.Errorf("fan-out client %d read %q, want %q", i, text.String(), want)
			}
		}
	}
	return t, nil
}

// readRun reads one run's deltas until its message.updated with the final state.
func readRun(c *sseClient) ([]event, error) {
	var out []event
	for {
		ev, err := c.next(30*time.Second, "message.delta", "message.updated")
		if err != nil {
			return out, err
		}
		if ev.Type == "message.delta" {
			out = append(out, ev)
			continue
		}
		var m runMessage
		if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
			return out, err
		}
		if m.final() {
			return out, nil
		}
	}
}

func (b *bench) report(tp throughputResult, first, fan tally) {
	o := b.o
	fmt.Printf("runs %d in parallel chats, workers %d, posters %d, %d-token answers, fake gap %s, flush_interval %s\n",
		tp.runs, o.workers, o.posters, o.tokens, o.gap, o.flush)
	fmt.Printf("\n| throughput | runs | failed | posted in | first post -> last final | runs/s | CPU per run |\n|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %d chats | %d | %d | %s | %s | **%.0f** | %s |\n", tp.runs, tp.runs, tp.failed, tp.post.Round(time.Millisecond),
		tp.span.Round(time.Millisecond), float64(tp.runs)/tp.span.Seconds(), (tp.cpu / time.Duration(tp.runs)).Round(time.Microsecond))
	fmt.Printf("\n| latency | samples | p50 | p99 | max | mean | CPU per sample |\n|---|---|---|---|---|---|---|\n%s\n%s\n", first.row(), fan.row())
}
