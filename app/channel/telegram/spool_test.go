package telegram_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestTelegramHookAnswersWhileTheStoreWriterIsBusy: the hook keeps an update in the spool,
// a file with a writer of its own, so the provider has its 200 while the store's writer is
// held by another write; a forged update is refused and kept nowhere. Once the writer is
// free, the relay queues the update and it is taken in.
func TestTelegramHookAnswersWhileTheStoreWriterIsBusy(t *testing.T) {
	t.Parallel()
	w := newWorld(t, noRuns)
	rt := w.e.Runtime
	held, release := make(chan struct{}), make(chan struct{})
	go rt.DB.Write(context.Background(), func(app.Tx) error { //nolint:errcheck // nothing written
		close(held)
		<-release
		return nil
	})
	<-held
	// Should the hook wait for the held writer, its answer would never come: the guard frees
	// the writer after a while, and the test fails on what it saw.
	waited := time.AfterFunc(10*time.Second, func() { close(release) })
	w.post(t, w.hookPath(t), "", textUpdate(3001, "Are you open on Sunday?")).Expect(200)
	w.post(t, w.hookPath(t), "not-the-secret", textUpdate(3002, "forged")).ExpectError(403, "permission_denied")
	if !waited.Stop() {
		t.Fatal("the hook answered only once the store's writer was free")
	}
	ups, err := rt.Spool.Take(context.Background(), 10, 1<<30)
	if err != nil || len(ups) != 1 || ups[0].DeploymentID != w.asi || ups[0].OrgID != w.e.Org.ID {
		t.Fatalf("spooled while the writer was held: %+v, %v", ups, err)
	}
	close(release)

	c := w.chat(t)
	w.e.WaitIdle()
	ms := w.messages(t, c["id"].(string))
	if len(ms) != 1 || partText(ms[0], 0) != "Are you open on Sunday?" {
		t.Fatalf("messages %v", ms)
	}
	if ups, err := rt.Spool.Take(context.Background(), 10, 1<<30); err != nil || len(ups) != 0 {
		t.Fatalf("the spool still holds %d updates (%v) once relayed", len(ups), err)
	}
}

// TestTelegramUpdateKeptAfterTheWorkersStoppedIsTakenInAtTheNextStart: during a shutdown the
// hook may still answer after the inbound worker's relay has stopped; the update waits in the
// spool file and the next process on the same files takes it in.
func TestTelegramUpdateKeptAfterTheWorkersStoppedIsTakenInAtTheNextStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := apitest.FilesIn(dir)
	w := newWorld(t, noRuns, files)
	if err := w.e.Runtime.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.post(t, w.hookPath(t), "", textUpdate(4001, "Still there?")).Expect(200)
	ups, err := w.e.Runtime.Spool.Take(context.Background(), 10, 1<<30)
	if err != nil || len(ups) != 1 {
		t.Fatalf("spooled with the workers stopped: %+v, %v", ups, err)
	}

	// An hour's tick: only the start itself can have the relay look at the spool.
	next := apitest.New(t, apitest.Unlimited, apitest.NoRuns, files, func(c *cli.Config) { c.Channels.Inbound.Tick = time.Hour })
	var inbox []map[string]any
	next.Eventually(10*time.Second, "the chat in the next process's inbox", func() bool {
		next.Do("GET", "/orgs/c/inbox?assistant_integration_id="+w.asi, next.AdminKey, nil).Expect(200).JSON(&inbox)
		return len(inbox) == 1
	})
	var ms []map[string]any
	next.Do("GET", "/orgs/c/chats/"+inbox[0]["id"].(string)+"/messages", next.AdminKey, nil).Expect(200).JSON(&ms)
	if len(ms) != 1 || partText(ms[0], 0) != "Still there?" {
		t.Fatalf("messages %v", ms)
	}
}
