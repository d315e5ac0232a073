package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"wsapi/app"
)

// cursorsWalkWithoutGapsOrRepeats: a cursor walk of the inbox visits every chat once, most
// recent activity first, even when chats share an instant (the id breaks the tie) and when a
// chat already walked past moves to the top meanwhile.
func cursorsWalkWithoutGapsOrRepeats(t *testing.T, e *env) {
	var made []string
	for i := range 9 {
		c, err := e.svc.CreateChat(e.ctx, e.owner, app.ChatInput{})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, c.ID)
		if i%3 == 2 { // three chats to an instant
			e.clock.Advance(time.Second)
		}
	}
	var walked []string
	next := ""
	for pages := 0; ; pages++ {
		l, err := e.svc.Inbox(e.ctx, e.org, app.InboxFilter{}, next, app.Page{Page: 1, Take: 2})
		if err != nil {
			t.Fatal(err)
		}
		if l.Total != len(made) {
			t.Fatalf("total %d, want %d", l.Total, len(made))
		}
		for _, c := range l.Items {
			walked = append(walked, c.ID)
		}
		if pages == 1 { // the first chat walked gets news: it moves to the top, behind the cursor
			e.clock.Advance(time.Second)
			e.say(walked[0], "news")
		}
		if next = l.Next; next == "" {
			break
		}
		if pages > len(made) {
			t.Fatal("the walk does not end")
		}
	}
	sorted := slices.Clone(walked)
	slices.Sort(sorted)
	want := slices.Clone(made)
	slices.Sort(want)
	if !slices.Equal(sorted, want) {
		t.Fatalf("the walk visited %v, want each of %v once", walked, made)
	}
	// Newest first: the chats of a later instant come before those of an earlier one.
	first := map[string]int{}
	for i, id := range made {
		first[id] = i / 3
	}
	for i := 1; i < len(walked); i++ {
		if first[walked[i]] > first[walked[i-1]] {
			t.Fatalf("walk %v is not newest first", walked)
		}
	}
}

// say adds a user's text message to a chat as the owner.
func (e *env) say(chatID, text string) {
	e.t.Helper()
	_, err := e.svc.AddMessage(e.ctx, e.owner, chatID, app.MessageInput{Role: "user",
		Messages: []app.Turn{{Role: "user", Parts: []app.Part{{Type: "text", Text: text}}}}})
	if err != nil {
		e.t.Fatal(err)
	}
}

// countersFollowWrites: the numbers kept beside the rows (the contacts of an organization,
// the authentication version, the data version) follow every write, whichever way it goes.
func countersFollowWrites(t *testing.T, e *env) {
	count := func() (n int) {
		t.Helper()
		e.read(func(tx app.Tx) (err error) { n, err = contactCount(tx, e.org); return err })
		return n
	}
	var ids []string
	for _, name := range []string{"a", "b", "c"} {
		c, err := e.svc.CreateContact(e.ctx, e.org, app.ContactInput{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	other, err := e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "other"}, "")
	if err != nil {
		t.Fatal(err)
	}
	e.write(func(tx app.Tx) error { return tx.CreateContact(e.newContact(other.ID, "elsewhere")) })
	if n := count(); n != 3 {
		t.Fatalf("%d contacts counted, want 3 (another organization's not among them)", n)
	}
	if err := e.svc.DeleteContact(e.ctx, e.org, ids[0]); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d contacts counted after a deletion, want 2", n)
	}

	// The authentication version moves with a key's change, so cached principals are
	// dropped; the organization's version (when the store can tell it) with every commit to it.
	auth := func() int64 {
		v, err := e.store.AuthVersion(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a0 := auth()
	d0, known := e.store.OrgVersion(e.org)
	if a := auth(); a != a0 {
		t.Fatalf("the authentication version moved from %d to %d without a write", a0, a)
	}
	nk, err := e.svc.CreateKey(e.ctx, e.owner, app.KeyInput{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	a1 := auth()
	if a1 == a0 {
		t.Fatal("creating a key left the authentication version as it was")
	}
	if err := e.svc.DeleteKey(e.ctx, &e.owner, e.org, nk.ID); err != nil {
		t.Fatal(err)
	}
	if auth() == a1 {
		t.Fatal("deleting a key left the authentication version as it was")
	}
	if d1, ok := e.store.OrgVersion(e.org); known && ok && d1 == d0 {
		t.Fatal("commits left the organization's version as it was")
	}
}

// searchFindsByNameAndText: contacts are found by a part of their name, whatever its case,
// and chats by a word of their messages; another organization's are never found.
func searchFindsByNameAndText(t *testing.T, e *env) {
	for _, name := range []string{"Ada Lovelace", "Grace Hopper", "Alan Turing"} {
		if _, err := e.svc.CreateContact(e.ctx, e.org, app.ContactInput{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "other"}, "")
	if err != nil {
		t.Fatal(err)
	}
	e.write(func(tx app.Tx) error { return tx.CreateContact(e.newContact(other.ID, "Grace Elsewhere")) })
	for search, want := range map[string][]string{"hopper": {"Grace Hopper"}, "A": {"Ada Lovelace", "Alan Turing", "Grace Hopper"}, "zzz": nil} {
		l, err := e.svc.ListContacts(e.ctx, e.org, app.ContactFilter{Search: search}, app.Page{Page: 1, Take: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range l.Items {
			got = append(got, c.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) || l.Total != len(want) {
			t.Errorf("contacts matching %q: %v (total %d), want %v", search, got, l.Total, want)
		}
	}

	chats := map[string]string{}
	for _, text := range []string{"my invoice is late", "the parcel arrived"} {
		c, err := e.svc.CreateChat(e.ctx, e.owner, app.ChatInput{})
		if err != nil {
			t.Fatal(err)
		}
		e.say(c.ID, text)
		chats[text] = c.ID
	}
	l, err := e.svc.Inbox(e.ctx, e.org, app.InboxFilter{Search: "invoice"}, "", app.Page{Page: 1, Take: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].ID != chats["my invoice is late"] {
		t.Errorf("chats matching \"invoice\": %d, want only the one that says it", len(l.Items))
	}
}
