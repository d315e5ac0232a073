package telegram_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
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
	ups, err := rt.Spool.Take(context.Background(), 10)
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
	if ups, err := rt.Spool.Take(context.Background(), 10); err != nil || len(ups) != 0 {
		t.Fatalf("the spool still holds %d updates (%v) once relayed", len(ups), err)
	}
}
