package inbound

import (
	"context"
	"net/url"

	"wsapi/app"
	"wsapi/app/channel"
)

// Challenge answers GET /hooks/{typ}/{asi}, a provider's check that the URL is ours before it
// sends updates there: the text to echo when the connector recognises the request. A type
// without such a check, or an unknown, deleted or other organization's integration, is the
// same 404; a wrong token is refused (403).
func (r *Receiver) Challenge(ctx context.Context, typ, asi string, query url.Values) (string, error) {
	c, ok := r.Inbound[typ].(channel.Challenger)
	if !ok {
		return "", errUnknown
	}
	d, err := r.deployment(ctx, typ, asi)
	if err != nil {
		return "", err
	}
	text, ok := c.Challenge(d, query)
	if !ok {
		return "", &app.Error{Code: app.CodePermission, Message: "hub.verify_token is not this integration's verify_token"}
	}
	return text, nil
}
