package widget

import (
	"context"

	"wsapi/app"
	"wsapi/app/channel"
)

// Sender delivers replies to widget visitors. The reply reached the visitor's stream when
// it was committed (a run's text even as it streamed), so there is nothing to send: the
// delivery is recorded DELIVERED, and the message's id is its external id.
type Sender struct{}

var _ channel.Sender = Sender{}

// Send records the reply as delivered to the widget's stream.
func (Sender) Send(_ context.Context, _ app.Deployment, _ app.Chat, m app.Message) (channel.Sent, error) {
	return channel.Sent{Status: app.DeliveryDelivered, ExternalID: m.ID}, nil
}
