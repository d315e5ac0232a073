package main

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"wsapi/app/channel/telegram/telegramtest"
)

const usersPerOrg = 50

// update is a private text message of user u.
func update(id int64, u int, text string) map[string]any {
	return map[string]any{"update_id": id, "message": map[string]any{"message_id": id, "date": 1700000000, "text": text,
		"from": map[string]any{"id": u, "is_bot": false, "first_name": "User", "last_name": strconv.Itoa(u)},
		"chat": map[string]any{"id": u, "type": "private"}}}
}

// inbound posts the updates as Telegram does and waits until every one is in the inbox.
func inbound(o options, base, metricsAddr string, tg *telegramtest.Server, ts []*tenant) error {
	n := o.inRate * o.seconds
	inside, err := hookBuckets(metricsAddr)
	if err != nil {
		return err
	}
	lat := make([]time.Duration, n)
	var failed atomic.Int64
	start := time.Now()
	paced(o.inRate, n, func(i int) {
		t := ts[i%orgs]
		u := 100000 + (i/orgs)%usersPerOrg
		t0 := time.Now()
		_, err := call("POST", base+"/hooks/telegram/"+t.asi, "", update(int64(i+1), u, "question "+strconv.Itoa(i)), nil,
			"X-Telegram-Bot-Api-Secret-Token", tg.Bot(t.token).Secret)
		lat[i] = time.Since(t0)
		if err != nil {
			failed.Add(1)
		}
	})
	posted := time.Since(start)
	slices.Sort(lat)
	fmt.Printf("inbound: %d updates in %.2f s (%.0f/s offered %d/s), acknowledged p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d failed\n",
		n, posted.Seconds(), float64(n)/posted.Seconds(), o.inRate, ms(quantile(lat, .5)), ms(quantile(lat, .99)), ms(lat[n-1]), failed.Load())
	if after, err := hookBuckets(metricsAddr); err == nil {
		fmt.Println("inbound: " + insideShare(inside, after))
	}
	want := n / orgs
	for _, t := range ts {
		if err := t.waitMessages(base, want); err != nil {
			return err
		}
	}
	fmt.Printf("inbound: all %d taken in (chats and messages in the inbox) %.2f s after the first post\n", n, time.Since(start).Seconds())
	return nil
}

// waitMessages waits until the tenant's chats hold want contact messages in all.
func (t *tenant) waitMessages(base string, want int) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var chats []map[string]any
		if _, err := call("GET", base+"/orgs/c/inbox?take=100&assistant_integration_id="+t.asi, t.key, nil, &chats); err != nil {
			return err
		}
		total := 0
		t.chats = t.chats[:0]
		for _, c := range chats {
			id := c["id"].(string)
			t.chats = append(t.chats, id)
			total += count(base+"/orgs/c/chats/"+id+"/messages?take=1", t.key)
		}
		if total >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d messages taken in", total, want)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// count is a list's pagination-count.
func count(url, key string) int {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	n, _ := strconv.Atoi(res.Header.Get("pagination-count"))
	return n
}

// outbound posts members' replies through the API and measures until each reaches the Bot
// API server as a sendMessage.
func outbound(o options, base string, tg *telegramtest.Server, ts []*tenant) error {
	n := o.outRate * o.seconds
	sentAt := make([]time.Time, n)
	var mu sync.Mutex
	var failed atomic.Int64
	before := len(tg.Calls("sendMessage"))
	start := time.Now()
	paced(o.outRate, n, func(i int) {
		t := ts[i%orgs]
		chat := t.chats[(i/orgs)%len(t.chats)]
		t0 := time.Now()
		_, err := call("POST", base+"/orgs/c/chats/"+chat+"/messages", t.key, map[string]any{"role": "admin",
			"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": "reply " + strconv.Itoa(i)}}}}}, nil)
		mu.Lock()
		sentAt[i] = t0
		mu.Unlock()
		if err != nil {
			failed.Add(1)
		}
	})
	deadline := time.Now().Add(5 * time.Minute)
	for len(tg.Calls("sendMessage"))-before < n-int(failed.Load()) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	calls := tg.Calls("sendMessage")[before:]
	all := []time.Duration{}
	perOrg := make([][]time.Duration, orgs)
	var last time.Time
	for _, c := range calls {
		i, err := strconv.Atoi(c.Params["text"][len("reply "):])
		if err != nil || i >= n {
			continue
		}
		d := c.At.Sub(sentAt[i])
		all = append(all, d)
		perOrg[i%orgs] = append(perOrg[i%orgs], d)
		if c.At.After(last) {
			last = c.At
		}
	}
	slices.Sort(all)
	span := last.Sub(start).Seconds()
	fmt.Printf("outbound: %d replies offered at %d/s, %d sent by the delivery worker in %.2f s (%.0f/s), %d failed; POST to sendMessage p50 %.1f ms, p99 %.1f ms\n",
		n, o.outRate, len(all), span, float64(len(all))/span, failed.Load(), ms(quantile(all, .5)), ms(quantile(all, .99)))
	for i, d := range perOrg {
		slices.Sort(d)
		fmt.Printf("  org %d: %d sent, p50 %.1f ms, p99 %.1f ms\n", i, len(d), ms(quantile(d, .5)), ms(quantile(d, .99)))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
