package mail_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"wsapi/app"
)

func TestOpenAndClickTracking(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	e.Do("PATCH", "/orgs/c/emails/identities/"+s.identity.ID, e.AdminKey, map[string]any{"open_tracking": true, "click_tracking": true}).Expect(200)
	ann := s.contact(t, "Ann", "ann@dest.test")
	b := s.broadcast(t, ann)
	m := s.sink.Wait(t, 1, 10*time.Second)[0]
	waitBroadcast(t, e, b.ID, app.BroadcastSent)
	p := parseMail(t, m)
	// The tracked message is still DKIM-signed.
	verifs, err := dkim.VerifyWithOptions(bytes.NewReader(m.Data), &dkim.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		return []string{strings.Join(s.dns.TXT(name), "")}, nil
	}})
	if err != nil || len(verifs) != 1 || verifs[0].Err != nil {
		t.Fatalf("dkim: %v %+v", err, verifs)
	}
	if strings.Contains(p.HTML, `href="https://example.com/x"`) || !strings.Contains(p.HTML, "/t/c/") || !strings.Contains(p.HTML, "/t/o/") {
		t.Fatalf("html %s", p.HTML)
	}
	pixel, click := linkPath(t, p.HTML, "/t/o/"), linkPath(t, p.HTML, "/t/c/")
	unsub := linkPath(t, p.Header.Get("List-Unsubscribe"), "/u/")

	r := recipientOf(t, e, b.ID, "ann@dest.test")
	if r["is_opened"] != nil || r["click_count"] != float64(0) || r["last_clicked_at"] != nil {
		t.Fatalf("before %v", r)
	}
	// Tampered tokens: the links answer 404 (the pixel still answers an image and counts nothing).
	for _, path := range []string{tamper(click), tamper(unsub), "/t/c/nodot", "/u/nodot", "/t/c/" + strings.Repeat("A", 40)} {
		if res := noRedirect(t, e, path); res.StatusCode != 404 {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
	}
	e.Do("POST", tamper(unsub), "", nil).ExpectError(404, "not_found")
	// A token signed for one purpose is no good for another.
	swapped := "/t/c/" + strings.TrimPrefix(unsub, "/u/")
	if res := noRedirect(t, e, swapped); res.StatusCode != 404 {
		t.Fatalf("unsubscribe token as a click link: %d", res.StatusCode)
	}
	res := noRedirect(t, e, tamper(pixel))
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/gif" {
		t.Fatalf("tampered pixel %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	r = recipientOf(t, e, b.ID, "ann@dest.test")
	if r["is_opened"] != nil || r["click_count"] != float64(0) || r["is_unsubscribed"] != nil {
		t.Fatalf("after tampered links %v", r)
	}
	// The pixel records the open once.
	e.Clock.Advance(time.Minute)
	openedAt := app.At(e.Clock.Now()).String()
	for range 2 {
		res = noRedirect(t, e, pixel)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/gif" || res.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("pixel %d %v", res.StatusCode, res.Header)
		}
		e.Clock.Advance(time.Minute)
	}
	r = recipientOf(t, e, b.ID, "ann@dest.test")
	if r["is_opened"] != true || r["is_opened_at"] != openedAt {
		t.Fatalf("after open %v", r)
	}
	// The click goes to the original URL and counts.
	res = noRedirect(t, e, click)
	if res.StatusCode != 302 || res.Header.Get("Location") != "https://example.com/x" {
		t.Fatalf("click %d -> %q", res.StatusCode, res.Header.Get("Location"))
	}
	r = recipientOf(t, e, b.ID, "ann@dest.test")
	if r["click_count"] != float64(1) || r["last_clicked_at"] != app.At(e.Clock.Now()).String() {
		t.Fatalf("after click %v", r)
	}
	noRedirect(t, e, click)
	if r = recipientOf(t, e, b.ID, "ann@dest.test"); r["click_count"] != float64(2) {
		t.Fatalf("after 2 clicks %v", r)
	}
	var got app.Broadcast
	e.Do("GET", "/orgs/c/broadcasts/"+b.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Counts.Opened != 1 {
		t.Fatalf("counts %+v", got.Counts)
	}
}

func TestNoTrackingByDefault(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	b := s.broadcast(t, s.contact(t, "Ann", "ann@dest.test"))
	p := parseMail(t, s.sink.Wait(t, 1, 10*time.Second)[0])
	waitBroadcast(t, s.e, b.ID, app.BroadcastSent)
	if strings.Contains(p.HTML, "/t/o/") || strings.Contains(p.HTML, "/t/c/") || !strings.Contains(p.HTML, `href="https://example.com/x"`) {
		t.Fatalf("html %s", p.HTML)
	}
	// Only open tracking: links stay, the pixel is there.
	s.e.Do("PATCH", "/orgs/c/emails/identities/"+s.identity.ID, s.e.AdminKey, map[string]any{"open_tracking": true}).Expect(200)
	b = s.broadcast(t, s.contact(t, "Bob", "bob@dest.test"))
	p = parseMail(t, mailTo(t, s.sink.Wait(t, 2, 10*time.Second), "bob@dest.test"))
	if !strings.Contains(p.HTML, "/t/o/") || strings.Contains(p.HTML, "/t/c/") || !strings.Contains(p.HTML, `href="https://example.com/x"`) {
		t.Fatalf("html %s", p.HTML)
	}
}
