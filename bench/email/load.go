package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sustained sends rate mails a second for seconds, open loop: each mail is due at its
// moment and its latency counts from then, so a server falling behind shows in the numbers.
// 30% are replies to an earlier mail of the same sender (In-Reply-To), which must join that
// mail's chat; 10% carry an attachment.
func sustained(s *server, api *client, rate, seconds int) {
	n := rate * seconds
	var before []map[string]any // the chats already there (the big mail's)
	base, _ := strconv.Atoi(api.do("GET", "/orgs/c/inbox?limit=1", nil, &before).Get("Pagination-Count"))
	type result struct {
		wait  time.Duration
		bytes int
		err   error
	}
	results := make([]result, n)
	var mu sync.Mutex
	accepted := map[string][]string{} // sender -> Message-IDs of its mails accepted so far
	newThreads := 0
	// mail i is made when due: a reply names a mail of its sender already accepted, as a
	// person answers a mail they have received.
	next := func(i int) (string, string, []byte) {
		mu.Lock()
		defer mu.Unlock()
		from := fmt.Sprintf("contact%03d@customers.example", rand.IntN(300))
		id := fmt.Sprintf("m%d.%d@customers.example", time.Now().UnixNano(), i)
		var reply string
		if prev := accepted[from]; len(prev) > 0 && rand.IntN(10) < 3 {
			reply = prev[rand.IntN(len(prev))]
		} else {
			newThreads++
		}
		return from, id, compose(from, id, reply, i)
	}
	run0, wait0 := s.schedstat()
	begin := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64) // connections at once, as relays would open
	for i := 0; i < n; i++ {
		due := begin.Add(time.Duration(i) * time.Second / time.Duration(rate))
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			from, id, mail := next(i)
			_, err := send(s.smtp, from, mail)
			mu.Lock()
			results[i] = result{wait: time.Since(due), bytes: len(mail), err: err}
			if err == nil {
				accepted[from] = append(accepted[from], id)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	run1, wait1 := s.schedstat()
	var lat, small, big []time.Duration
	failed, total := 0, 0
	for _, r := range results {
		if r.err != nil {
			failed++
			if failed < 5 {
				log.Printf("send: %v", r.err)
			}
			continue
		}
		lat = append(lat, r.wait)
		total += r.bytes
		if r.bytes > 64<<10 {
			big = append(big, r.wait)
		} else {
			small = append(small, r.wait)
		}
	}
	for _, l := range [][]time.Duration{lat, small, big} {
		slices.Sort(l)
	}
	fmt.Printf("sustained: %d mails (%.1f MB) at %d/s in %s: %d failed; acceptance p50 %s p90 %s p99 %s max %s\n",
		n, float64(total)/1e6, rate, elapsed.Round(time.Millisecond), failed, pct(lat, 50), pct(lat, 90), pct(lat, 99), lat[len(lat)-1])
	fmt.Printf("  %d mails under 64 KB: p50 %s p99 %s; %d with an attachment: p50 %s p99 %s\n",
		len(small), pct(small, 50), pct(small, 99), len(big), pct(big, 50), pct(big, 99))
	fmt.Printf("  server threads meanwhile: %s on a CPU, %s runnable waiting for one\n",
		(run1 - run0).Round(time.Millisecond), (wait1 - wait0).Round(time.Millisecond))
	// Parsed and threaded: every mail is a message, every reply in its first mail's chat.
	var chats []map[string]any
	deadline := time.Now().Add(30 * time.Second)
	for {
		h := api.do("GET", "/orgs/c/inbox?limit=1", nil, &chats)
		got, _ := strconv.Atoi(h.Get("Pagination-Count"))
		if got-base == newThreads || time.Now().After(deadline) {
			fmt.Printf("threaded: %d new chats for %d new threads (%d replies joined theirs), all there %s after the first mail\n",
				got-base, newThreads, n-newThreads, time.Since(begin).Round(time.Millisecond))
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Printf("server RSS after: %.0f MB, peak %.0f MB\n", float64(s.rss())/1e6, float64(procKB(s.cmd.Process.Pid, "VmHWM:"))*1024/1e6)
}

// bigMail sends one mail of about mb MB (a PDF-like attachment) and samples the server's RSS
// every 5 ms while it arrives, is queued, and is taken in (until its chat holds its message
// with the attachment).
func bigMail(s *server, api *client, mb int) {
	before := s.rss()
	// base64 (4/3) in lines of 76 (+2): just under mb MiB on the wire, the default limit.
	attachment := make([]byte, (mb<<20-16<<10)*3/4*76/78)
	for i := range attachment {
		attachment[i] = byte(rand.IntN(256))
	}
	mail := withAttachment("big@customers.example", "big@customers.example.id", "", "The big one", "scan.pdf", attachment)
	done := make(chan struct{})
	peak := before
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				peak = max(peak, s.rss())
			}
		}
	}()
	start := time.Now()
	took, err := send(s.smtp, "big@customers.example", mail)
	if err != nil {
		log.Fatalf("big mail: %v", err)
	}
	for deadline := time.Now().Add(60 * time.Second); !bigTakenIn(api); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			log.Fatal("big mail: not taken in after a minute")
		}
	}
	stored := time.Since(start)
	time.Sleep(200 * time.Millisecond) // whatever follows the commit
	close(done)
	fmt.Printf("big mail: %.1f MB accepted in %s, in its chat after %s; server RSS %.0f MB before, peak %.0f MB while it arrived and was taken in\n",
		float64(len(mail))/1e6, took.Round(time.Millisecond), stored.Round(time.Millisecond), float64(before)/1e6, float64(peak)/1e6)
}

// bigTakenIn tells whether the big mail's chat holds its message with the attachment.
func bigTakenIn(api *client) bool {
	var chats []map[string]any
	api.do("GET", "/orgs/c/inbox?limit=100", nil, &chats)
	for _, c := range chats {
		if title, _ := c["title"].(string); title == "The big one" {
			var files []map[string]any
			api.do("GET", "/orgs/c/chats/"+c["id"].(string)+"/files", nil, &files)
			for _, f := range files {
				if f["file_filename"] == "scan.pdf" {
					return true
				}
			}
		}
	}
	return false
}

// compose makes mail i: 70% a short plain mail, 20% an HTML newsletter-sized one (about
// 40 KB), 10% with an attachment of 100 KB to 1 MB. The bodies are made before the load
// begins (see bodies): making a megabyte of random base64 takes the client milliseconds of
// the two cores it shares with the server, which would count in the server's latency.
func compose(from, id, inReplyTo string, i int) []byte {
	subject := fmt.Sprintf("Question %d", i)
	switch k := rand.IntN(10); {
	case k == 0:
		return withEncoded(from, id, inReplyTo, subject, "document.pdf", bodies.attachments[rand.IntN(len(bodies.attachments))])
	case k < 3:
		return plain(from, id, inReplyTo, subject, "text/html", bodies.html)
	default:
		return plain(from, id, inReplyTo, subject, "text/plain", "Hello,\n\nwhen will my order ship?\n\nThanks\n")
	}
}

// bodies are the HTML body and the base64 attachments (100 KB to 1 MB before encoding) that
// compose draws from.
var bodies = func() (b struct {
	html        string
	attachments [][]byte
}) {
	b.html = "<html><body>" + strings.Repeat("<p>We would like to know more about the <b>enterprise</b> plan and its limits.</p>\n", 500) + "</body></html>"
	for range 32 {
		data := make([]byte, 100<<10+rand.IntN(900<<10))
		for j := range data {
			data[j] = byte(rand.IntN(256))
		}
		b.attachments = append(b.attachments, base64Lines(data))
	}
	return b
}()

func headers(from, id, inReplyTo, subject string) string {
	h := "From: " + from + "\r\nTo: help@bench.example\r\nSubject: " + subject + "\r\nMessage-ID: <" + id +
		">\r\nDate: " + time.Now().Format(time.RFC1123Z) + "\r\nMIME-Version: 1.0\r\n"
	if inReplyTo != "" {
		h += "In-Reply-To: <" + inReplyTo + ">\r\nReferences: <" + inReplyTo + ">\r\n"
	}
	return h
}

func plain(from, id, inReplyTo, subject, ct, body string) []byte {
	return []byte(headers(from, id, inReplyTo, subject) + "Content-Type: " + ct + "; charset=utf-8\r\n\r\n" +
		strings.ReplaceAll(body, "\n", "\r\n"))
}

func withAttachment(from, id, inReplyTo, subject, name string, data []byte) []byte {
	return withEncoded(from, id, inReplyTo, subject, name, base64Lines(data))
}

// withEncoded makes a mail with a short text and an attachment already in base64 lines.
func withEncoded(from, id, inReplyTo, subject, name string, encoded []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(encoded) + 1024)
	b.WriteString(headers(from, id, inReplyTo, subject))
	b.WriteString("Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nSee the attached file.\r\n--b1\r\n")
	b.WriteString("Content-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"" + name +
		"\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	b.Write(encoded)
	b.WriteString("--b1--\r\n")
	return b.Bytes()
}

// base64Lines is data in base64, in lines of 76 characters each ending in CRLF.
func base64Lines(data []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(data)
	out := make([]byte, 0, len(enc)+len(enc)/76*2+2)
	for len(enc) > 76 {
		out = append(append(out, enc[:76]...), "\r\n"...)
		enc = enc[76:]
	}
	return append(append(out, enc...), "\r\n"...)
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100].Round(100 * time.Microsecond)
}
