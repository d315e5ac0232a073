package mailbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestMailboxImportsTheCorpus: every mail of the email corpus, appended to a mailbox, goes
// through the poller and the email channel's receiver without stopping the mailbox: each
// mail with a sender becomes a contact's message, the mail without one is skipped, and the
// three bounces open no chat: the one about a contact of the organization suppresses its
// address, the two about addresses the organization does not know suppress nothing (a
// DSN is unauthenticated mail: anyone could send one naming any address).
func TestMailboxImportsTheCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../testdata/corpus/*.eml")
	if err != nil || len(files) < 30 {
		t.Fatalf("corpus: %d files (%v)", len(files), err)
	}
	b := newBox(t, true, apitest.NoRuns)
	b.e.Do("POST", "/orgs/c/contacts", b.e.AdminKey, map[string]any{"name": "Former employee",
		"channels": []map[string]any{{"type": "email", "email": "former.employee@contoso.com"}}}).Expect(201)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.imap.Append(t, "INBOX", raw)
	}
	d := b.integration(t, "right-password")
	b.tick()
	want := len(files) - 4 // missing_from, dsn_postfix, dsn_exchange, bounce_qmail_plain
	b.e.Eventually(wait, "the corpus to be imported", func() bool { return len(b.texts(t, d.ID)) == want })
	var sups []app.Suppression
	b.e.Do("GET", "/orgs/c/suppressions", b.e.AdminKey, nil).Expect(200).JSON(&sups)
	got := map[string]bool{}
	for _, s := range sups {
		got[s.Email] = true
	}
	if len(sups) != 1 || got["nobody@gone.example.net"] || got["olduser@qmail.example.net"] || !got["former.employee@contoso.com"] {
		t.Fatalf("suppressions %+v", sups)
	}
	b.imap.Append(t, "INBOX", mail("Ada <ada@example.org>", "After", "after@example.org", "after the corpus"))
	b.e.Eventually(wait, "the next mail", func() bool { return len(b.texts(t, d.ID)) == want+1 })
}
