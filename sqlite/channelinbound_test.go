package sqlite_test

import (
	"testing"

	"wsapi/app"
	"wsapi/app/channel/inbound"
)

// TestChannelSeenAndExternalIDs: a provider's id is recorded once per integration (a second
// MarkSeen answers false, another integration's is its own), forgotten after the retention;
// a message is found by its delivery's external_id in its organization only.
func TestChannelSeenAndExternalIDs(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org, other := newOrg(t, db, "org_a", "", 0).ID, newOrg(t, db, "org_b", "", 0).ID
	for _, q := range workQueues() {
		if q.name == "channel updates" {
			q.seed(t, db, org, 0, 1)
			q.seed(t, db, other, 0, 1)
		}
	}
	var first, again, elsewhere, seen bool
	write(t, db, func(tx app.Tx) (err error) {
		itx := tx.(inbound.Tx)
		if first, err = itx.MarkSeen("asi_"+org, "update:1", at(10)); err != nil {
			return err
		}
		if again, err = itx.MarkSeen("asi_"+org, "update:1", at(11)); err != nil {
			return err
		}
		elsewhere, err = itx.MarkSeen("asi_"+other, "update:1", at(12))
		return err
	})
	read(t, db, func(tx app.Tx) (err error) { seen, err = tx.(inbound.Tx).Seen("asi_"+org, "update:1"); return err })
	if !first || again || !elsewhere || !seen {
		t.Fatalf("MarkSeen first %v, again %v, other integration %v; Seen %v", first, again, elsewhere, seen)
	}
	var purged int
	write(t, db, func(tx app.Tx) (err error) { purged, err = tx.(inbound.Tx).PurgeSeen(at(12)); return err })
	read(t, db, func(tx app.Tx) (err error) { seen, err = tx.(inbound.Tx).Seen("asi_"+org, "update:1"); return err })
	if purged != 1 || seen {
		t.Fatalf("purge before the third: %d gone, the first still seen: %v", purged, seen)
	}

	ext := "wamid.42"
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateChat(testChat(org, "chat_x", 1), app.ChatMember{}),
			tx.CreateMessage(org, message("chat_x", "msg_x", "assistant", "COMPLETED", "", "hi", 2)),
			tx.SetMessageDelivery(org, "msg_x", app.MessageDelivery{Status: app.DeliverySent, ExternalID: &ext, UpdatedAt: at(3)}))
	})
	var chatID, msgID string
	read(t, db, func(tx app.Tx) (err error) {
		chatID, msgID, err = tx.(inbound.Tx).MessageByExternalID(org, ext)
		return err
	})
	if chatID != "chat_x" || msgID != "msg_x" {
		t.Fatalf("by external id: %s %s", chatID, msgID)
	}
	err := db.Read(bg, func(tx app.Tx) error { _, _, err := tx.(inbound.Tx).MessageByExternalID(other, ext); return err })
	if !app.IsNotFound(err) {
		t.Fatalf("another organization's message by external id: %v", err)
	}
}
