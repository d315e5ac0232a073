package sqlite_test

import (
	"testing"
	"time"

	"wsapi/app"
)

// A waiting follow-up run turns into an ordinary run when the contact writes (ScheduleRun
// on the same chat), and a follow-up never replaces a run already waiting; the chat's
// automation counters round-trip.
func TestFollowUpRunsAndCounters(t *testing.T) {
	c := newClaimEnv(t)
	org := c.org(t, "acme")
	now := app.At(c.clock.Now())
	chat := app.Chat{ID: app.NewID("chat"), OrgID: org, Model: app.AutoModel, Visibility: "PRIVATE", Status: "COMPLETED",
		Tools: []app.Tool{}, CreatedAt: now, UpdatedAt: now,
		State: &app.ChatState{ID: app.NewID("cs"), State: "OPEN", IntegrationID: app.IntegrationInternal}}
	run := func(due time.Duration, followUp bool) app.Run {
		return app.Run{ID: app.NewID("run"), OrgID: org, ChatID: chat.ID, DueAt: app.At(now.Add(due)), CreatedAt: now,
			FollowUp: followUp}
	}
	var due []app.Run
	var auto app.ChatAutomation
	err := c.db.Write(bg, func(tx app.Tx) (err error) {
		if err := tx.CreateChat(chat, app.ChatMember{}); err != nil {
			return err
		}
		if err := tx.ScheduleFollowUp(run(0, true)); err != nil {
			return err
		}
		if err := tx.ScheduleRun(run(time.Second, false)); err != nil { // the contact wrote
			return err
		}
		if err := tx.ScheduleFollowUp(run(0, true)); err != nil { // ignored: a run waits
			return err
		}
		if err := tx.SetChatAutomation(chat.ID, app.ChatAutomation{FollowUps: 2, CSATPending: true}); err != nil {
			return err
		}
		if auto, err = tx.ChatAutomation(chat.ID); err != nil {
			return err
		}
		due, err = tx.DueRuns(app.At(now.Add(time.Hour)), app.ClaimRoom{Limit: 10})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != 1 || due[0].FollowUp || !due[0].DueAt.Equal(now.Add(time.Second)) {
		t.Fatalf("waiting runs %+v", due)
	}
	if auto != (app.ChatAutomation{FollowUps: 2, CSATPending: true}) {
		t.Fatalf("automation %+v", auto)
	}
}
