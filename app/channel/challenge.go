package channel

import (
	"net/url"

	"wsapi/app"
)

// Challenger answers a provider's subscription check of its webhook (Meta's GET with
// hub.mode, hub.verify_token and hub.challenge, shared by WhatsApp, Messenger and
// Instagram): the text to echo, and whether the request proved it knows the integration's
// verify token (compared in constant time).
type Challenger interface {
	Challenge(d app.Deployment, query url.Values) (string, bool)
}
