package mailbox_test

import (
	"context"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestMailboxImportsIntoChats: the unread mail of a mailbox is imported when the integration
// is first polled (through the email channel's receiver: one chat per sender), and a mail
// that arrives later comes by IDLE, without the poll interval passing.
func TestMailboxImportsIntoChats(t *testing.T) {
	t.Parallel()
	b := newBox(t, true)
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Invoice", "a1@example.org", "Where is my invoice?"))
	b.imap.Append(t, "INBOX", mail("Alan <alan@example.net>", "Login", "b1@example.net", "I cannot log in."))
	d := b.integration(t, "right-password")
	if d.Status != app.DeploymentActive || d.Error != nil {
		t.Fatalf("created %s %v, want ACTIVE", d.Status, d.Error)
	}
	b.tick() // the first poll of the new integration
	b.waitTexts(t, d.ID, "Where is my invoice?", "I cannot log in.")

	b.imap.Append(t, "INBOX", mail("Grace <grace@example.com>", "Hello", "c1@example.com", "A question about plans."))
	b.waitTexts(t, d.ID, "Where is my invoice?", "I cannot log in.", "A question about plans.")
}

// TestMailboxPollsWithoutIdle: a server without IDLE gets its new mail at the next poll, and
// not before.
func TestMailboxPollsWithoutIdle(t *testing.T) {
	t.Parallel()
	b := newBox(t, false)
	d := b.integration(t, "right-password")
	b.tick()
	// The first poll has run once it kept a cursor; a mail appended before that would be its.
	b.e.Eventually(wait, "the first poll", func() bool {
		_, ok, err := b.e.Runtime.Mailbox.Store.Cursor(context.Background(), d.ID)
		return ok && err == nil
	})
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Invoice", "a2@example.org", "Where is my invoice?"))
	b.e.WaitIdle()
	if got := b.texts(t, d.ID); len(got) != 0 {
		t.Fatalf("imported %q before the poll", got)
	}
	b.tick()
	b.waitTexts(t, d.ID, "Where is my invoice?")
}

// TestMailboxRestartImportsNothingTwice: a new poller over the same database goes on from
// the cursor: what was imported is not imported again (the mails carry no Message-ID, so
// only the cursor can tell), and what arrived meanwhile is.
func TestMailboxRestartImportsNothingTwice(t *testing.T) {
	t.Parallel()
	b := newBox(t, false)
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "One", "", "first mail"))
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Two", "", "second mail"))
	d := b.integration(t, "right-password")
	b.tick()
	b.waitTexts(t, d.ID, "first mail", "second mail")
	b.e.WaitIdle()
	cfg := b.e.Runtime.Config
	if err := b.e.Runtime.Close(); err != nil {
		t.Fatal(err)
	}

	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Three", "", "third mail"))
	b.e = apitest.New(t, func(c *cli.Config) { *c = cfg })
	b.tick()
	b.waitTexts(t, d.ID, "first mail", "second mail", "third mail")
	b.tick()
	b.e.WaitIdle()
	b.waitTexts(t, d.ID, "first mail", "second mail", "third mail")
}

// TestMailboxUIDValidityChange: a mailbox made again (new UIDVALIDITY, UIDs renumbered) is
// read again from the day before the last mail imported; what was imported already is
// recognised by its Message-ID, the new mail is imported.
func TestMailboxUIDValidityChange(t *testing.T) {
	t.Parallel()
	b := newBox(t, false)
	one := mail("Ada <ada@example.org>", "One", "v1@example.org", "first mail")
	two := mail("Alan <alan@example.net>", "Two", "v2@example.net", "second mail")
	b.imap.Append(t, "INBOX", one)
	b.imap.Append(t, "INBOX", two)
	d := b.integration(t, "right-password")
	b.tick()
	b.waitTexts(t, d.ID, "first mail", "second mail")

	b.imap.Recreate(t, "INBOX", [][]byte{two, mail("Grace <grace@example.com>", "Three", "v3@example.com", "third mail"), one})
	b.tick()
	b.waitTexts(t, d.ID, "first mail", "second mail", "third mail")
}

// TestMailboxFailsAndRecovers: a wrong password saves the integration FAILED with the
// server's refusal; the right one makes it ACTIVE. A server that goes away marks it FAILED
// at the next poll, and ACTIVE again by itself once it is back; a password changed at the
// provider fails the poll until the integration gets the new one.
func TestMailboxFailsAndRecovers(t *testing.T) {
	t.Parallel()
	b := newBox(t, true)
	d := b.integration(t, "wrong-password")
	if d.Status != app.DeploymentFailed || d.Error == nil || !contains(*d.Error, "refused the login", "AUTHENTICATIONFAILED") {
		t.Fatalf("created with a wrong password: %s %v", d.Status, d.Error)
	}
	b.e.Do("PATCH", b.path("/", d.ID), b.e.AdminKey, map[string]any{"secrets": map[string]string{"imap_password": "right-password"}}).
		Expect(200).JSON(&d)
	if d.Status != app.DeploymentActive || d.Error != nil {
		t.Fatalf("patched with the right password: %s %v", d.Status, d.Error)
	}
	b.tick()
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "One", "f1@example.org", "first mail"))
	b.waitTexts(t, d.ID, "first mail")

	b.imap.Stop()
	b.tick()
	b.waitStatus(t, d.ID, app.DeploymentFailed, "cannot connect to the IMAP server")
	b.imap.Start(t)
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Two", "f2@example.org", "second mail"))
	b.tick()
	b.waitStatus(t, d.ID, app.DeploymentActive, "")
	b.waitTexts(t, d.ID, "first mail", "second mail")

	b.imap.SetPassword("rotated-password")
	b.imap.Stop() // the open IDLE connection ends, as a provider does on a password change
	b.imap.Start(t)
	b.tick()
	b.waitStatus(t, d.ID, app.DeploymentFailed, "refused the login")
	b.e.Do("PATCH", b.path("/", d.ID), b.e.AdminKey, map[string]any{"secrets": map[string]string{"imap_password": "rotated-password"}}).
		Expect(200).JSON(&d)
	if d.Status != app.DeploymentActive {
		t.Fatalf("patched with the new password: %s %v", d.Status, d.Error)
	}
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Three", "f3@example.org", "third mail"))
	b.tick()
	b.waitTexts(t, d.ID, "first mail", "second mail", "third mail")
}

// TestMailboxCheckNamesTheProblem: the set-up check says which step failed: a mailbox that
// does not exist, and a host the server may not reach (a private address, with
// webhooks.allow_private_targets off).
func TestMailboxCheckNamesTheProblem(t *testing.T) {
	t.Parallel()
	b := newBox(t, true)
	var d app.Deployment
	b.e.Do("POST", b.path(), b.e.AdminKey, map[string]any{"integration_id": "email", "name": "m",
		"config": b.imap.Config(b.identity, "Support"), "secrets": map[string]string{"imap_password": "right-password"}}).
		Expect(201).JSON(&d)
	if d.Status != app.DeploymentFailed || d.Error == nil || !contains(*d.Error, `cannot open the mailbox "Support"`) {
		t.Fatalf("missing mailbox: %s %v", d.Status, d.Error)
	}

	guarded := newBox(t, true, func(c *cli.Config) { c.Webhooks.AllowPrivateTargets = false })
	d = guarded.integration(t, "right-password")
	if d.Status != app.DeploymentFailed || d.Error == nil || !contains(*d.Error, "forbidden target address") {
		t.Fatalf("private host: %s %v", d.Status, d.Error)
	}
}

func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestMailboxStartTLS: with tls false the poller secures the connection with STARTTLS
// before logging in, and imports as over implicit TLS.
func TestMailboxStartTLS(t *testing.T) {
	t.Parallel()
	b := newBox(t, true)
	b.imap.UseStartTLS(t)
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "Plain", "s1@example.org", "over starttls"))
	d := b.integration(t, "right-password")
	if d.Status != app.DeploymentActive || d.Config["imap"].(map[string]any)["tls"] != false {
		t.Fatalf("created %s %v, config %v", d.Status, d.Error, d.Config)
	}
	b.tick()
	b.waitTexts(t, d.ID, "over starttls")
}
