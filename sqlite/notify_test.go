package sqlite_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/sqlite"
)

// TestWriteNotifications: after a commit the store tells the workers that work was queued
// (and the streams that events were written), but not for a write that failed and was rolled
// back, nor for one that queued nothing; every write reports how long it waited for the
// writer.
func TestWriteNotifications(t *testing.T) {
	t.Parallel()
	db, path := openDB(t)
	org := newOrg(t, db, "org_n", "", 0).ID
	write(t, db, func(tx app.Tx) error { return tx.CreateChat(testChat(org, "chat_1", 0), app.ChatMember{}) })
	var queued, streamed, waits atomic.Int32
	db.OnWorkQueued(func(w sqlite.Work) {
		if w == sqlite.WorkRuns { // only the kind queued: the other workers are not woken
			queued.Add(1)
		}
	})
	db.OnStreamed(func([]app.StreamEvent) { streamed.Add(1) })
	db.ObserveWriteWait(func(d time.Duration) {
		if d >= 0 {
			waits.Add(1)
		}
	})
	schedule := func(tx app.Tx) error {
		return tx.ScheduleRun(app.Run{ID: app.NewID("run"), OrgID: org, ChatID: "chat_1", DueAt: at(1), CreatedAt: at(0)})
	}
	stream := func(tx app.Tx) error {
		_, err := tx.InsertStreamEvent(app.StreamEvent{OrgID: org, Type: app.StreamChatUpdated, Area: "inbox", Data: []byte(`{}`), CreatedAt: at(0)})
		return err
	}
	boom := errors.New("boom")
	steps := []struct {
		name             string
		fn               func(tx app.Tx) error
		queued, streamed int32
	}{
		{"nothing queued", func(tx app.Tx) error { _, err := tx.CountOrgs(); return err }, 0, 0},
		{"a run scheduled", schedule, 1, 0},
		{"a run scheduled, then a failure", func(tx app.Tx) error { return firstErr(schedule(tx), boom) }, 1, 0},
		{"a stream event", stream, 1, 1},
		{"a stream event, then a failure", func(tx app.Tx) error { return firstErr(stream(tx), boom) }, 1, 1},
	}
	for i, s := range steps {
		err := db.Write(bg, s.fn)
		if err != nil && !errors.Is(err, boom) {
			t.Fatalf("%s: %v", s.name, err)
		}
		if q, st, w := queued.Load(), streamed.Load(), waits.Load(); q != s.queued || st != s.streamed || w != int32(i+1) {
			t.Errorf("after %s: %d work notices, %d stream notices, %d waits; want %d, %d, %d", s.name, q, st, w, s.queued, s.streamed, i+1)
		}
	}
	writer, reader := db.Pools()
	if writer.Stats().MaxOpenConnections != 1 || reader.Stats().MaxOpenConnections < 2 || db.Path() != path {
		t.Errorf("pools: writer %d connections, reader %d; path %q", writer.Stats().MaxOpenConnections, reader.Stats().MaxOpenConnections, db.Path())
	}
}
