package whatsapp

import (
	"context"
	"errors"
	"net/url"

	"wsapi/app"
)

// Connector checks an integration's set-up when it is saved: the phone number is read with
// the access token, so a wrong token or number is the integration's error at once (FAILED
// with Meta's message) rather than a failed reply later.
type Connector struct {
	Client *Client
}

var _ app.Connector = Connector{}

// Verify reads the phone number of the integration's config with its access token.
func (c Connector) Verify(ctx context.Context, d app.Deployment) error {
	var phone struct {
		ID                 string `json:"id"`
		DisplayPhoneNumber string `json:"display_phone_number"`
	}
	err := c.Client.call(ctx, d.Secrets["access_token"], "GET",
		"/"+url.PathEscape(phoneNumberID(d))+"?fields=display_phone_number,verified_name", nil, &phone)
	if err != nil {
		return err
	}
	if phone.ID != phoneNumberID(d) {
		return errors.New("WhatsApp: the Graph API did not answer phone number " + phoneNumberID(d))
	}
	return nil
}

func phoneNumberID(d app.Deployment) string {
	s, _ := d.Config["phone_number_id"].(string)
	return s
}

// VerifyToken is the integration's generated verify_token, pasted into Meta's webhook set-up.
func VerifyToken(d app.Deployment) string {
	s, _ := d.Config["verify_token"].(string)
	return s
}
