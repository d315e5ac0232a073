package channel

import "wsapi/app"

// deliveryFlags are the broadcast recipient flags each delivery status sets: a read message
// was delivered and sent too.
var deliveryFlags = map[string][]string{app.DeliverySent: {"sent"}, app.DeliveryDelivered: {"sent", "delivered"},
	app.DeliveryRead: {"sent", "delivered", "opened"}, app.DeliveryFailed: {"failed"}}

// RecordDelivery records a message's new delivery, moves the flags of the broadcast recipient
// it carries (a broadcast on a messaging app, app/channelbroadcast.go), and streams
// message.delivery: the one way the delivery worker and the providers' status reports change
// a delivery, in their own write.
func RecordDelivery(s *app.Service, tx app.Tx, orgID, chatID string, m app.Message, d app.MessageDelivery) error {
	if err := tx.SetMessageDelivery(orgID, m.ID, d); err != nil {
		return err
	}
	if err := recipientFlags(s, tx, orgID, m, d); err != nil {
		return err
	}
	return s.EmitStream(tx, orgID, chatID, app.StreamMessageDelivery, app.DeliveryChange{MessageID: m.ID, ChatID: chatID, Delivery: d})
}

func recipientFlags(s *app.Service, tx app.Tx, orgID string, m app.Message, d app.MessageDelivery) error {
	flags := deliveryFlags[d.Status]
	if m.BroadcastID == nil || len(flags) == 0 {
		return nil
	}
	r, err := tx.RecipientOfMessage(orgID, *m.BroadcastID, m.ID)
	if app.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	now := app.At(s.Clock().Now())
	for _, f := range flags {
		if _, err := tx.SetRecipientFlag(r.ID, f, d.UpdatedAt, now); err != nil {
			return err
		}
	}
	if d.Status == app.DeliveryFailed && d.Error != nil {
		return tx.FinishRecipient(r.ID, nil, d.Error, now)
	}
	return nil
}
