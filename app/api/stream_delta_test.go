package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// stRun starts a RUNNING assistant message through the API (as the run loop will) while s
// watches, and answers the message id and the id of its message.created.
func stRun(t *testing.T, e *apitest.Env, s *apitest.SSEStream, chatID string) (msgID, createdID string) {
	t.Helper()
	m := e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "assistant", "status": "RUNNING",
		"messages": []map[string]any{{"role": "assistant", "parts": []any{}}}}).Expect(201).Map()
	ev := s.Expect(app.StreamMessageCreated)
	if ev.Map(t)["id"] != m["id"] || ev.Map(t)["status"] != "RUNNING" {
		t.Fatalf("message.created %s, want the RUNNING message %v", ev.Data, m["id"])
	}
	return m["id"].(string), ev.ID
}

// readDeltasTo reads deltas until one ends at the rune offset end. A watcher that fell
// behind gets queued pieces joined, so how many deltas carry the text is not fixed.
func readDeltasTo(t *testing.T, s *apitest.SSEStream, end int) []apitest.SSEEvent {
	t.Helper()
	var out []apitest.SSEEvent
	for {
		ev := s.Expect(app.StreamMessageDelta)
		out = append(out, ev)
		_, o, _ := strings.Cut(ev.ID, ".")
		if at, _ := strconv.Atoi(o); at >= end {
			return out
		}
	}
}

// runes counts the runes of pieces joined.
func runes(pieces ...string) int { return utf8.RuneCountInString(strings.Join(pieces, "")) }

func TestChatStreamDeltasSyncAndResumeInTheMiddleOfARun(t *testing.T) {
	e := stEnv(t)
	hub, org := e.Runtime.Hub, e.Org.ID
	chatID := chConversation(e, e.AdminKey, "c", "Gus")["id"].(string)
	w1, _ := stOpen(t, e, e.AdminKey, chatID)
	msgID, created := stRun(t, e, w1, chatID)

	pieces := []string{"Hel", "lo, ", "wörld", " — ", "ünïcode ✓ ", "and ", "the ", "end."}
	offset := 0
	delta := func(i int) {
		hub.Delta(org, chatID, msgID, offset, pieces[i])
		offset += len([]rune(pieces[i]))
	}
	for i := range 3 {
		delta(i)
	}
	got := readDeltasTo(t, w1, runes(pieces[:3]...))
	if text := joinDeltas(t, msgID, 0, got); text != strings.Join(pieces[:3], "") {
		t.Fatalf("deltas %q", text)
	}
	if !strings.HasPrefix(got[0].ID, created+".") {
		t.Fatalf("delta id %s does not start with its message.created id %s", got[0].ID, created)
	}

	// A client that connects mid-run gets the message with the text streamed so far, and so
	// does the sync chat event.
	w2, sync := stOpen(t, e, e.AdminKey, chatID)
	var synced app.Message
	sync.JSON(t, &synced)
	if synced.ID != msgID || app.StreamText(synced) != strings.Join(pieces[:3], "") {
		t.Fatalf("sync %s, want %s with text %q", sync.Data, msgID, strings.Join(pieces[:3], ""))
	}
	var posted app.Message
	e.Do("POST", "/orgs/c/chats/"+chatID+"/events", e.AdminKey, map[string]any{"type": "sync"}).Expect(200).JSON(&posted)
	if app.StreamText(posted) != app.StreamText(synced) {
		t.Fatalf("sync event answers %q, the stream's sync %q", app.StreamText(posted), app.StreamText(synced))
	}

	// w1 drops after the second piece (as if the third never arrived) and misses three.
	resumeAt := created + "." + strconv.Itoa(runes(pieces[:2]...))
	w1.Close()
	for i := 3; i < 6; i++ {
		delta(i)
	}
	r := e.Stream(chatStreamPath("c", chatID), e.AdminKey, resumeAt)
	rest := r.Expect(app.StreamMessageDelta)
	for i := 6; i < len(pieces); i++ {
		delta(i)
	}
	live := readDeltasTo(t, r, runes(pieces...))
	full := strings.Join(pieces, "")
	before := strings.Join(pieces[:2], "")
	if text := before + joinDeltas(t, msgID, len([]rune(before)), append([]apitest.SSEEvent{rest}, live...)); text != full {
		t.Fatalf("resumed text %q, want %q", text, full)
	}
	r.Quiet(50 * time.Millisecond) // nothing repeated
	if text := strings.Join(pieces[:3], "") + joinDeltas(t, msgID, len([]rune(strings.Join(pieces[:3], ""))), readDeltasTo(t, w2, runes(pieces...))); text != full {
		t.Fatalf("mid-run watcher's text %q, want %q", text, full)
	}

	// The run ends: its final state is stored, the hub forgets the live text.
	e.Do("PATCH", "/orgs/c/chats/"+chatID+"/messages/"+msgID, e.AdminKey, map[string]any{"status": "COMPLETED",
		"messages": chText("assistant", full)}).Expect(200)
	hub.Done(org, chatID, msgID)
	if m := r.Expect(app.StreamMessageUpdated).Map(t); m["status"] != "COMPLETED" {
		t.Fatalf("message.updated %v", m)
	}
	if _, ok := hub.LiveText(org, chatID, msgID); ok {
		t.Fatalf("the hub still holds the text of a finished run")
	}
	// Resuming from the same point now reads the stored text, then the stored events after S.
	r2 := e.Stream(chatStreamPath("c", chatID), e.AdminKey, resumeAt)
	tail := r2.Expect(app.StreamMessageDelta)
	if text := before + joinDeltas(t, msgID, len([]rune(before)), []apitest.SSEEvent{tail}); text != full {
		t.Fatalf("text resumed from the stored message %q, want %q", text, full)
	}
	r2.Expect(app.StreamMessageUpdated)
	r2.Quiet(50 * time.Millisecond)
	e.Do("POST", "/orgs/c/chats/"+chatID+"/events", e.AdminKey, map[string]any{"type": "sync"}).Expect(200)
}

func TestChatStreamResumeFromAStoredIDMidRunGetsASync(t *testing.T) {
	e := stEnv(t)
	hub, org := e.Runtime.Hub, e.Org.ID
	chatID := chConversation(e, e.AdminKey, "c", "Hal")["id"].(string)
	w, _ := stOpen(t, e, e.AdminKey, chatID)
	msgID, created := stRun(t, e, w, chatID)
	hub.Delta(org, chatID, msgID, 0, "partial ")
	readDeltasTo(t, w, runes("partial "))
	w.Close()
	hub.Delta(org, chatID, msgID, 8, "answer")
	// Resuming from the message.created id: the client knew the run, not how far it got.
	r := e.Stream(chatStreamPath("c", chatID), e.AdminKey, created)
	var m app.Message
	r.Expect(app.StreamSync).JSON(t, &m)
	if app.StreamText(m) != "partial answer" {
		t.Fatalf("sync text %q", app.StreamText(m))
	}
	hub.Delta(org, chatID, msgID, 14, "!")
	if d := r.Expect(app.StreamMessageDelta).Map(t); d["text"] != "!" || d["offset"] != float64(14) {
		t.Fatalf("live delta after the sync %v", d)
	}
	// Resuming from before the message: its message.created, then all of its text so far.
	r2 := e.Stream(chatStreamPath("c", chatID), e.AdminKey, "1")
	for {
		ev := r2.Next()
		if ev.Type == app.StreamMessageCreated && ev.Map(t)["id"] == msgID {
			break
		}
	}
	if text := joinDeltas(t, msgID, 0, readDeltasTo(t, r2, runes("partial answer!"))); text != "partial answer!" {
		t.Fatalf("text of a run that started after the resume point %q", text)
	}
}

func TestChatStreamHundredWatchersGetEveryDelta(t *testing.T) {
	e := stEnv(t, func(c *cli.Config) { // a hundred streams of one key: past its default cap
		c.Events.MaxStreamsPerKey, c.Events.MaxStreamsPerMember = 100, 100
	})
	hub, org := e.Runtime.Hub, e.Org.ID
	chatID := chConversation(e, e.AdminKey, "c", "Ida")["id"].(string)
	first, _ := stOpen(t, e, e.AdminKey, chatID)
	msgID, _ := stRun(t, e, first, chatID)
	watchers := make([]*apitest.SSEStream, 100)
	watchers[0] = first
	var wg sync.WaitGroup
	errs := make([]error, len(watchers))
	for i := 1; i < len(watchers); i++ {
		wg.Go(func() { watchers[i], errs[i] = e.OpenStream(chatStreamPath("c", chatID), e.AdminKey, "") })
	}
	wg.Wait()
	for i, s := range watchers[1:] {
		if errs[i+1] != nil {
			t.Fatal(errs[i+1])
		}
		if ev := s.Next(); ev.Type != app.StreamSync { // subscribed before its sync was written
			t.Fatalf("watcher %d: first event %s", i+1, ev.Type)
		}
	}
	var want strings.Builder
	start := time.Now()
	for i := range 50 {
		piece := fmt.Sprintf("piece %d; ", i)
		hub.Delta(org, chatID, msgID, len([]rune(want.String())), piece)
		want.WriteString(piece)
	}
	publish := time.Since(start)
	for i, s := range watchers {
		if text := joinDeltas(t, msgID, 0, readDeltasTo(t, s, runes(want.String()))); text != want.String() {
			t.Fatalf("watcher %d got %q", i, text)
		}
	}
	t.Logf("50 deltas to 100 watchers: published in %s, all received in %s", publish, time.Since(start))
}

func TestChatStreamSlowWatcherIsDroppedWithoutSlowingOthers(t *testing.T) {
	e := stEnv(t, func(c *cli.Config) { c.Events.StreamBuffer = 8 })
	hub, org := e.Runtime.Hub, e.Org.ID
	chatID := chConversation(e, e.AdminKey, "c", "Jo")["id"].(string)
	fast, _ := stOpen(t, e, e.AdminKey, chatID)
	msgID, _ := stRun(t, e, fast, chatID)

	// The slow watcher sends its request and then reads nothing until the end: once the
	// socket buffers are full the server's writes to it block. (A smaller receive buffer
	// would fill sooner, but one under the loopback MSS makes TCP crawl on persist probes.)
	conn, err := net.Dial("tcp", e.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer %s\r\n\r\n", chatStreamPath("c", chatID), e.AdminKey)
	e.Eventually(5*time.Second, "the slow watcher subscribed", func() bool { return hub.Watchers() == 2 })

	piece := strings.Repeat("x", 32<<10)
	var slowest time.Duration
	slowAt := 0
	const n = 500
	for i := range n {
		t0 := time.Now()
		hub.Delta(org, chatID, msgID, i*len(piece), piece)
		if d := time.Since(t0); d > slowest {
			slowest, slowAt = d, i
		}
		if d := fast.Expect(app.StreamMessageDelta); !strings.HasSuffix(d.ID, fmt.Sprintf(".%d", (i+1)*len(piece))) {
			t.Fatalf("fast watcher got delta %s, want the %dth", d.ID, i+1)
		}
	}
	t.Logf("%d deltas of 32 KiB: the slowest Delta call (#%d) took %s", n, slowAt, slowest)
	// A Delta that waited on the slow watcher would never return (it reads nothing); the
	// bound only catches a publisher that waits on something else.
	if slowest > 5*time.Second {
		t.Fatalf("a Delta call took %s: the publisher waited on a watcher", slowest)
	}
	e.Eventually(5*time.Second, "the slow watcher dropped", func() bool { return hub.Watchers() == 1 })

	// Its connection was ended: reading it now reaches the end, short of the last delta.
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	status, _ := br.ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("slow watcher's status line %q", status)
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("slow watcher's connection was not ended: %v", err)
	}
	if strings.Contains(string(rest), fmt.Sprintf(".%d\n", n*len(piece))) {
		t.Fatalf("the slow watcher got every delta; it was not dropped")
	}
	fast.Quiet(20 * time.Millisecond)
}
