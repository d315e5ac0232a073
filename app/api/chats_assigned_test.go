package api_test

import (
	"reflect"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// chEnvelopeOf finds the envelope whose data is the chat answered by a PATCH at the same
// moment (ordering of deliveries is not guaranteed, so match on content).
func chEnvelopeOf(envs []map[string]any, patched map[string]any) map[string]any {
	for _, env := range envs {
		if reflect.DeepEqual(env["data"], patched) {
			return env
		}
	}
	return nil
}

// TestChatAssignedEvent follows chat.assigned to a real receiver: assign, reassign and
// unassign each deliver the full chat; a PATCH to the same assignee and every change of an
// internal chat deliver nothing.
func TestChatAssignedEvent(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventChatAssigned)
	asst := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Triage"})
	ct := chContact(e, e.AdminKey, "c", "Margaret", map[string]any{"type": "whatsapp", "phone": "+44 20 7946 0000"})
	chat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"], "assistant_id": asst["id"]})
	id := chat["id"].(string)
	a := e.Member(e.AdminKey, "c", "Agent One", "MEMBER")
	b := e.Member(e.AdminKey, "c", "Agent Two", "MEMBER")

	var patched []map[string]any
	step := func(body map[string]any) map[string]any {
		t.Helper()
		e.Clock.Advance(time.Second)
		c := chPatch(e, e.AdminKey, "c", id, body)
		patched = append(patched, c)
		return c
	}
	step(map[string]any{"assigned_user_id": a.ID})                      // the AI hands off
	step(map[string]any{"assigned_user_id": b.ID, "ai_enabled": false}) // another member takes it
	step(map[string]any{"assigned_user_id": nil})                       // unassigned
	rcv.Wait(t, 3, 5*time.Second)

	envs := rcv.Envelopes(t)
	wantAssignee := []string{a.ID, b.ID, ""}
	for i, c := range patched {
		env := chEnvelopeOf(envs, c)
		if env == nil {
			t.Fatalf("change %d: no envelope carries the chat as answered by PATCH:\n%v", i, c)
		}
		if env["type"] != app.EventChatAssigned || env["org_id"] != e.Org.ID || env["created_at"] != c["updated_at"] {
			t.Errorf("change %d: envelope %v", i, env)
		}
		apitest.ExpectShape(t, "data", env["data"].(map[string]any), chWith(chChatShape, "last_message", "absent"))
		st := chState(env["data"].(map[string]any))
		if st["channel_type"] != "whatsapp" || chObj(st, "assistant")["id"] != asst["id"] {
			t.Errorf("change %d: state %v", i, st)
		}
		au, present := st["assigned_user"]
		switch {
		case wantAssignee[i] == "" && present:
			t.Errorf("unassign: assigned_user %v, want the key absent", au)
		case wantAssignee[i] == "" && st["assigned_at"] != nil:
			t.Errorf("unassign: assigned_at %v", st["assigned_at"])
		case wantAssignee[i] != "" && chObj(au)["id"] != wantAssignee[i]:
			t.Errorf("change %d: assigned_user %v, want %s", i, au, wantAssignee[i])
		case wantAssignee[i] != "" && st["assigned_at"] != c["updated_at"]:
			t.Errorf("change %d: assigned_at %v", i, st["assigned_at"])
		}
	}
	if chState(patched[1])["ai_enabled"] != false {
		t.Errorf("ai_enabled %v", chState(patched[1])["ai_enabled"])
	}

	// Nothing for: the same assignee again (twice, after assigning once more), an unrelated
	// PATCH, and an internal chat assigned and unassigned.
	step(map[string]any{"assigned_user_id": a.ID})
	rcv.Wait(t, 4, 5*time.Second)
	chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": a.ID})
	chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": a.ID, "title": "same"})
	chPatch(e, e.AdminKey, "c", id, map[string]any{"pinned": true})
	internal := chChat(e, e.AdminKey, "c", map[string]any{"assistant_id": asst["id"]})["id"].(string)
	chPatch(e, e.AdminKey, "c", internal, map[string]any{"assigned_user_id": a.ID})
	chPatch(e, e.AdminKey, "c", internal, map[string]any{"assigned_user_id": b.ID})
	chPatch(e, e.AdminKey, "c", internal, map[string]any{"assigned_user_id": nil})

	// Then a change that must be delivered. Events are written with their change (an
	// outbox), so once this one has arrived every earlier one is in the deliveries list.
	last := step(map[string]any{"assigned_user_id": b.ID})
	rcv.Wait(t, 5, 5*time.Second)
	ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
	if len(ds) != 5 {
		t.Fatalf("%d deliveries, want 5 (4 changes of assignee and the last one)", len(ds))
	}
	rcv.Quiet(t, 5, 100*time.Millisecond)
	envs = rcv.Envelopes(t)
	ids := map[string]bool{}
	for _, env := range envs {
		ids[env["id"].(string)] = true
		if d := env["data"].(map[string]any); d["id"] != id {
			t.Errorf("a delivery for chat %v, want only %s", d["id"], id)
		}
	}
	for _, d := range ds {
		if !ids[d.EventID] || d.EventType != app.EventChatAssigned {
			t.Errorf("delivery %s of event %s (%s) did not arrive", d.ID, d.EventID, d.EventType)
		}
	}
	if chEnvelopeOf(envs, last) == nil {
		t.Errorf("the last assignment did not arrive as answered")
	}
}
