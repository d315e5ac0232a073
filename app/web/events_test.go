package web_test

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// A tab's live stream carries the organization's changes, and ends within a heartbeat once
// its session is gone (here: signed out everywhere from another tab).
func TestLiveStreamCarriesChangesAndEndsWithTheSession(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.Events.StreamHeartbeat = 200 * time.Millisecond })
	c := conversation(t, e, "Max Stream")
	b := signedIn(t, e, e.Owner)
	req, _ := http.NewRequest("GET", e.Server.URL+"/app/events?chat="+c.ID, nil)
	res, err := b.client.Do(req)
	if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %v %v", err, res)
	}
	defer res.Body.Close()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(what, prefix string) string {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stream ended before %s", what)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-deadline:
				t.Fatalf("no %s within 5 s", what)
			}
		}
	}
	wait("hello", "event: hello")
	contactSays(t, e, c.ID, "are you there?")
	wait("change", "event: change")
	if d := wait("its data", "data: "); !strings.Contains(d, `"chat":"`+c.ID+`"`) || !strings.Contains(d, `"type":"message.created"`) {
		t.Fatalf("change data %s", d)
	}
	// A chat of another organization is not followed.
	_, key := e.OrgWithAdmin("Other")
	var oc struct{ ID string }
	e.Do("POST", "/orgs/c/chats", key, map[string]any{}).Expect(201).JSON(&oc)
	if a := b.get("/app/events?chat="+oc.ID, "HX-Request", "true"); a.Status != 404 {
		t.Fatalf("stream of another organization's chat: %d", a.Status)
	}

	b2 := newTab(t, e)
	b2.client.Jar = b.client.Jar
	b2.get("/app/").expect(t, 200)
	b2.htmx("POST", "/app/signout-everywhere", nil).expect(t, http.StatusNoContent)
	wait("the end of the session", "event: signedout")
	select {
	case _, ok := <-lines:
		for ok {
			_, ok = <-lines
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived its session")
	}
}
