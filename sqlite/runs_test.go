package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
)

func runIDs(runs []app.Run) string {
	return fmt.Sprint(idsOf(runs, func(r app.Run) string { return r.ID }))
}

// A run's life: it waits (one waiting run per chat, which a new message can drop), is
// started under a lease, renewed, found orphaned when its owner is another process or its
// lease lapsed, stopped and deleted.
func TestRunLifecycle(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_r", "", 0).ID
	run := func(id, chat string, due int) app.Run {
		return app.Run{ID: id, OrgID: org, ChatID: chat, DueAt: at(due), CreatedAt: at(0)}
	}
	due := func(now int) (d bool) {
		read(t, db, func(tx app.Tx) (err error) { d, err = tx.AnyRunDue(at(now)); return err })
		return d
	}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateChat(testChat(org, "chat_1", 0), app.ChatMember{}), tx.CreateChat(testChat(org, "chat_2", 0), app.ChatMember{}),
			tx.ScheduleRun(run("run_1", "chat_1", 10)))
	})
	if due(5) || !due(10) {
		t.Fatal("a run waiting for 10 is due at 5, or not at 10")
	}
	var dropped, droppedNone bool
	write(t, db, func(tx app.Tx) (err error) {
		if droppedNone, err = tx.DropWaitingRun("chat_2"); err != nil {
			return err
		}
		if err := tx.StartRun("run_1", "msg_1", "owner_a", at(60)); err != nil {
			return err
		}
		if err := tx.ScheduleRun(run("run_2", "chat_1", 20)); err != nil { // a run may wait beside one under way
			return err
		}
		dropped, err = tx.DropWaitingRun("chat_1")
		return err
	})
	if droppedNone || !dropped || due(100) {
		t.Errorf("dropped on an idle chat %v, on chat_1 %v; due after %v", droppedNone, dropped, due(100))
	}
	read(t, db, func(tx app.Tx) error {
		under, err := tx.RunsUnderWay("chat_1")
		r, err2 := tx.GetRun("run_1")
		_, gone := tx.GetRun("run_2")
		if firstErr(err, err2) != nil || runIDs(under) != "[run_1]" || r.MessageID != "msg_1" || r.Owner != "owner_a" ||
			!r.LeaseUntil.Equal(at(60).Time) || code(gone) != "not_found" {
			t.Errorf("under way %s, run %+v, dropped run %v (%v %v)", runIDs(under), r, gone, err, err2)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.RenewRun("run_1", at(120)) })
	read(t, db, func(tx app.Tx) error {
		for _, c := range []struct {
			owner string
			now   int
			want  string
		}{{"owner_a", 100, "[]"}, {"owner_b", 100, "[run_1]"}, {"owner_a", 120, "[run_1]"}} {
			if runs, err := tx.OrphanRuns(c.owner, at(c.now)); err != nil || runIDs(runs) != c.want {
				t.Errorf("orphans for %s at %d: %s (%v), want %s", c.owner, c.now, runIDs(runs), err, c.want)
			}
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.StopRun("run_1", "cancelled") })
	read(t, db, func(tx app.Tx) error {
		under, err := tx.RunsUnderWay("chat_1")
		r, _ := tx.GetRun("run_1")
		if err != nil || runIDs(under) != "[]" || r.Stop != "cancelled" {
			t.Errorf("after the stop: under way %s, stop %q (%v)", runIDs(under), r.Stop, err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteRun("run_1") })
	for name, fn := range map[string]func(tx app.Tx) error{
		"delete": func(tx app.Tx) error { return tx.DeleteRun("run_1") },
		"stop":   func(tx app.Tx) error { return tx.StopRun("run_1", "x") },
		"start":  func(tx app.Tx) error { return tx.StartRun("run_1", "m", "o", at(1)) },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s of a deleted run: %v", name, err)
		}
	}
}

// Automation candidates: auto-resolve takes open chats whose enabled assistant has
// auto-resolve on and whose last message is the assistant's, completed before the cutoff,
// oldest first; follow-ups are open chats whose follow-up time has come.
func TestAutomationCandidates(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_a", "", 0).ID
	on, off := app.Assistant{ID: "asst_on", OrgID: org, Name: "On", Enabled: true, CreatedAt: at(0), UpdatedAt: at(0)},
		app.Assistant{ID: "asst_off", OrgID: org, Name: "Off", Enabled: true, CreatedAt: at(0), UpdatedAt: at(0)}
	on.Config.Conversation.EnableAutoResolve = true
	type spec struct {
		id, asst, state, lastRole string
		last, followUp            int
	}
	write(t, db, func(tx app.Tx) error {
		if err := firstErr(tx.CreateAssistant(on), tx.CreateAssistant(off)); err != nil {
			return err
		}
		for _, s := range []spec{
			{"chat_late", "asst_on", "OPEN", "assistant", 50, 0},
			{"chat_yes", "asst_on", "OPEN", "assistant", 5, 30},
			{"chat_user_last", "asst_on", "OPEN", "user", 5, 0},
			{"chat_off", "asst_off", "OPEN", "assistant", 5, 0},
			{"chat_closed", "asst_on", "CLOSED", "assistant", 5, 10},
			{"chat_follow", "asst_off", "OPEN", "user", 1, 20},
		} {
			c := testChat(org, s.id, 0)
			c.State.AssistantID, c.State.State = &s.asst, s.state
			if s.followUp > 0 {
				c.State.FollowUpAt = at(s.followUp)
			}
			if err := firstErr(tx.CreateChat(c, app.ChatMember{}),
				tx.CreateMessage(org, message(s.id, "msg_"+s.id, s.lastRole, "COMPLETED", "", "x", s.last)), tx.UpdateChat(c)); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, db, func(tx app.Tx) error {
		refs := func(rs []app.ChatRef, err error) string {
			if err != nil {
				return err.Error()
			}
			return fmt.Sprint(idsOf(rs, func(r app.ChatRef) string { return r.ID }))
		}
		for _, c := range []struct {
			name, got, want string
		}{
			{"auto-resolve at 10", refs(tx.AutoResolveCandidates(at(10), 10)), "[chat_yes]"},
			{"auto-resolve at 60", refs(tx.AutoResolveCandidates(at(60), 10)), "[chat_yes chat_late]"},
			{"auto-resolve, limit 1", refs(tx.AutoResolveCandidates(at(60), 1)), "[chat_yes]"},
			{"follow-ups at 25", refs(tx.DueFollowUps(at(25), 10)), "[chat_follow]"},
			{"follow-ups at 30", refs(tx.DueFollowUps(at(30), 10)), "[chat_follow chat_yes]"},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
			}
		}
		if _, err := tx.ChatAutomation("chat_none"); code(err) != "not_found" {
			t.Errorf("automation of a missing chat: %v", err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.SetChatAutomation("chat_none", app.ChatAutomation{}) }); code(err) != "not_found" {
		t.Errorf("automation of a missing chat: %v", err)
	}
}
