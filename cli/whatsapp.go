package cli

import (
	"wsapi/app"
	"wsapi/app/channel/whatsapp"
)

// whatsappChannel is the WhatsApp Cloud API connector of the configured Graph API base URL
// (operator configuration, not a tenant's URL: it goes out without app/safehttp). Its sender
// reads the contact's channel and attached files from the store.
func whatsappChannel(cfg Config, store app.Store, clock app.Clock) whatsapp.Channel {
	return whatsapp.Channel{Client: whatsapp.NewClient(cfg.Channels.WhatsApp.APIURL), Store: store, Clock: clock}
}
