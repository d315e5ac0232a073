package sqlite_test

import (
	"slices"
	"testing"
	"time"

	"wsapi/app"
)

func TestStreamEventsOnePerMessageAndTypeInATransaction(t *testing.T) {
	db, _ := openDB(t)
	ev := func(typ, msg, data string) app.StreamEvent {
		return app.StreamEvent{OrgID: "org_1", ChatID: "chat_1", MessageID: msg, Type: typ, Area: "inbox",
			Data: []byte(data), CreatedAt: app.At(time.Now())}
	}
	var seqs []int64
	err := db.Write(bg, func(tx app.Tx) error {
		for _, e := range []app.StreamEvent{
			ev(app.StreamMessageCreated, "msg_a", `{"v":1}`),
			ev(app.StreamMessageCreated, "msg_a", `{"v":2}`), // the same message again: replaces
			ev(app.StreamMessageUpdated, "msg_a", `{"v":3}`),
			ev(app.StreamMessageCreated, "msg_b", `{"v":4}`),
			ev(app.StreamChatUpdated, "", `{"v":5}`),
			ev(app.StreamChatUpdated, "", `{"v":6}`), // not a message event: both kept
		} {
			seq, err := tx.InsertStreamEvent(e)
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seqs[0] != seqs[1] {
		t.Fatalf("a second message.created of one message got seq %d, the first %d", seqs[1], seqs[0])
	}
	var got []app.StreamEvent
	db.Read(bg, func(tx app.Tx) (err error) {
		got, err = tx.StreamEventsAfter("org_1", "chat_1", 0, 100)
		return err
	})
	want := []string{`{"v":2}`, `{"v":3}`, `{"v":4}`, `{"v":5}`, `{"v":6}`}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		if string(e.Data) != want[i] {
			t.Fatalf("event %d data %s, want %s", i, e.Data, want[i])
		}
	}
	// A later transaction may emit the same message's events again.
	err = db.Write(bg, func(tx app.Tx) error {
		_, err := tx.InsertStreamEvent(ev(app.StreamMessageUpdated, "msg_a", `{"v":7}`))
		return err
	})
	db.Read(bg, func(tx app.Tx) (err error) {
		got, err = tx.StreamEventsAfter("org_1", "", 0, 100)
		return err
	})
	if err != nil || len(got) != 6 || string(got[5].Data) != `{"v":7}` {
		t.Fatalf("after a second transaction: %v, %+v", err, got)
	}
}

// The stream log's lookups: one event by organization and seq, the seq of a message's
// creation, the last seq (0 on an empty log), every organization's events in order, and a
// purge of what is older than a cutoff.
func TestStreamLogLookupsAndPurge(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	read(t, db, func(tx app.Tx) error {
		if seq, err := tx.LastStreamSeq(); err != nil || seq != 0 {
			t.Errorf("last seq of an empty log %d (%v)", seq, err)
		}
		return nil
	})
	ev := func(org, chat, msg, typ string, sec int) app.StreamEvent {
		return app.StreamEvent{OrgID: org, ChatID: chat, MessageID: msg, Type: typ, Area: "inbox", Data: []byte(`{}`), CreatedAt: at(sec)}
	}
	var seqs []int64
	write(t, db, func(tx app.Tx) error {
		for _, e := range []app.StreamEvent{
			ev("org_a", "chat_1", "msg_1", app.StreamMessageCreated, 1),
			ev("org_b", "chat_2", "", app.StreamChatUpdated, 2),
			ev("org_a", "chat_1", "msg_1", app.StreamMessageUpdated, 3),
			ev("org_a", "", "", app.StreamChatUpdated, 10),
		} {
			seq, err := tx.InsertStreamEvent(e)
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	read(t, db, func(tx app.Tx) error {
		e, err := tx.GetStreamEvent("org_b", seqs[1])
		if err != nil || e.ChatID != "chat_2" || e.MessageID != "" || e.Type != app.StreamChatUpdated {
			t.Errorf("event %+v (%v)", e, err)
		}
		if _, err := tx.GetStreamEvent("org_a", seqs[1]); code(err) != "not_found" {
			t.Errorf("another org's event: %v", err)
		}
		if seq, err := tx.MessageCreatedSeq("org_a", "msg_1"); err != nil || seq != seqs[0] {
			t.Errorf("creation seq %d (%v), want %d", seq, err, seqs[0])
		}
		if _, err := tx.MessageCreatedSeq("org_b", "msg_1"); code(err) != "not_found" {
			t.Errorf("creation seq through another org: %v", err)
		}
		if seq, err := tx.LastStreamSeq(); err != nil || seq != seqs[3] {
			t.Errorf("last seq %d (%v)", seq, err)
		}
		all, err := tx.StreamEventsAfter("", "", seqs[0], 2)
		if err != nil || len(all) != 2 || all[0].Seq != seqs[1] || all[1].Seq != seqs[2] {
			t.Errorf("every org's events after the first, two: %+v (%v)", all, err)
		}
		orgA, err := tx.StreamEventsAfter("org_a", "", 0, 10)
		if err != nil || len(orgA) != 3 {
			t.Errorf("org_a's events %+v (%v)", orgA, err)
		}
		return nil
	})
	var n int
	write(t, db, func(tx app.Tx) (err error) { n, err = tx.PurgeStreamEvents(at(5)); return err })
	read(t, db, func(tx app.Tx) error {
		left, err := tx.StreamEventsAfter("", "", 0, 10)
		if err != nil || n != 3 || len(left) != 1 || left[0].Seq != seqs[3] {
			t.Errorf("purged %d, left %+v (%v)", n, left, err)
		}
		return nil
	})
}

// TestPurgeStreamEventsUpToTheFirstYoungOne: the purge deletes the run of old events that
// starts the log, up to the first one young enough to keep. An old event written after a
// young one (the clock stepped back) stays until the next purge that reaches it; a young
// event is never deleted. A purge of everything leaves seq growing; an empty log purges
// nothing.
func TestPurgeStreamEventsUpToTheFirstYoungOne(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	insert := func(secs ...int) (seqs []int64) {
		write(t, db, func(tx app.Tx) error {
			for _, sec := range secs {
				seq, err := tx.InsertStreamEvent(app.StreamEvent{OrgID: "org_a", Type: app.StreamChatUpdated, Area: "inbox",
					Data: []byte(`{}`), CreatedAt: at(sec)})
				if err != nil {
					return err
				}
				seqs = append(seqs, seq)
			}
			return nil
		})
		return seqs
	}
	purge := func(cutoff int) (n int) {
		write(t, db, func(tx app.Tx) (err error) { n, err = tx.PurgeStreamEvents(at(cutoff)); return err })
		return n
	}
	left := func() (seqs []int64) {
		read(t, db, func(tx app.Tx) error {
			all, err := tx.StreamEventsAfter("", "", 0, 100)
			for _, e := range all {
				seqs = append(seqs, e.Seq)
			}
			return err
		})
		return seqs
	}

	if n := purge(5); n != 0 {
		t.Errorf("an empty log purged %d", n)
	}
	seqs := insert(1, 2, 6, 3, 7)
	if n, got := purge(5), left(); n != 2 || !slices.Equal(got, seqs[2:]) {
		t.Errorf("purge before 5: %d deleted, left %v; want 2 and %v", n, got, seqs[2:])
	}
	if n, got := purge(7), left(); n != 2 || !slices.Equal(got, seqs[4:]) {
		t.Errorf("purge before 7: %d deleted, left %v; want 2 and %v", n, got, seqs[4:])
	}
	if n, got := purge(8), left(); n != 1 || len(got) != 0 {
		t.Errorf("purge of everything: %d deleted, left %v", n, got)
	}
	if next := insert(9); next[0] <= seqs[4] {
		t.Errorf("after a purge of everything the next seq is %d, not above %d", next[0], seqs[4])
	}
}
