package sqlite_test

import (
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
