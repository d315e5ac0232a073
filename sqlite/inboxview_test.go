package sqlite_test

import (
	"database/sql"
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// TestInboxViewLog: a search view read once is patched after a write to one chat, read whole
// after a bump that logs no chat (segment membership) and after more versions than the log
// keeps (4,096 per organization: older rows are trimmed by the triggers), and its answer
// always equals an uncached read's.
func TestInboxViewLog(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	db.CacheChats(1000)
	org, _ := inboxScene(t, db)
	plain, err := sqlite.Open(path) // no cache: every answer read whole
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	f := app.InboxFilter{Search: "refund", Filter: "UNRESOLVED"}
	step := func(what string, wantPatched, wantWhole int64) {
		t.Helper()
		p0, w0 := db.InboxViewStats()
		got, n := inbox(t, db, org, f, nil, 0, 10, -1)
		want, wantN := inbox(t, plain, org, f, nil, 0, 10, -1)
		if fmt.Sprint(got, n) != fmt.Sprint(want, wantN) {
			t.Errorf("%s: %v (%d), uncached %v (%d)", what, got, n, want, wantN)
		}
		if p, w := db.InboxViewStats(); p-p0 != wantPatched || w-w0 != wantWhole {
			t.Errorf("%s: %d patched, %d whole; want %d, %d", what, p-p0, w-w0, wantPatched, wantWhole)
		}
	}
	updateChat := func(times int, state string) {
		write(t, db, func(tx app.Tx) error {
			for range times {
				c, err := tx.GetChatRow(org, "chat_3")
				if err != nil {
					return err
				}
				c.State.State = state
				if err := tx.UpdateChat(c); err != nil {
					return err
				}
			}
			return nil
		})
	}
	step("first read", 0, 1)
	step("same version", 0, 0)
	updateChat(1, "CLOSED")
	step("one chat closed", 1, 0)
	updateChat(1, "OPEN")
	step("one chat reopened", 1, 0)
	write(t, db, func(tx app.Tx) error { return tx.RemoveFromSegment(org, "seg_1", "ct_1") })
	step("segment membership, no log row", 0, 1)
	updateChat(4100, "OPEN")
	step("beyond the log", 0, 1)
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var rows int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM inbox_changes WHERE org_id = ?`, org).Scan(&rows); err != nil || rows != 4096 {
		t.Errorf("log rows of the organization %d (%v), want the last 4096", rows, err)
	}
	updateChat(1, "SNOOZED")
	step("patched again", 1, 0)
}

// TestInboxViewOlderSnapshot: a reader whose snapshot began before a write finds its version
// of a view beside the newer one another reader patched since, instead of reading it whole.
func TestInboxViewOlderSnapshot(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	db.CacheChats(1000)
	org, _ := inboxScene(t, db)
	f := app.InboxFilter{Search: "refund"}
	list := func(tx app.Tx) string {
		chats, n, err := tx.ListInbox(org, f, nil, 0, 10, -1)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(idsOf(chats, func(c app.Chat) string { return c.ID }), n)
	}
	read(t, db, func(old app.Tx) error {
		before := list(old) // the snapshot starts here, and the view is read whole
		write(t, db, func(tx app.Tx) error {
			c, err := tx.GetChatRow(org, "chat_3")
			if err != nil {
				return err
			}
			c.State.State = "CLOSED"
			return tx.UpdateChat(c)
		})
		read(t, db, func(tx app.Tx) error { list(tx); return nil }) // patched to the write
		p0, w0 := db.InboxViewStats()
		if again := list(old); again != before {
			t.Errorf("the older snapshot's view %s, first %s", again, before)
		}
		if p, w := db.InboxViewStats(); p != p0 || w != w0 {
			t.Errorf("the older snapshot's view was read again: %d patched, %d whole", p-p0, w-w0)
		}
		return nil
	})
	if p, w := db.InboxViewStats(); p != 1 || w != 1 {
		t.Errorf("%d patched, %d whole; want 1 and 1", p, w)
	}
}
