// Package whatsapp is the WhatsApp Cloud API channel (the `whatsapp` integration): the set-up
// check of an integration (its phone number read with the access token), the webhook's
// hub.challenge and X-Hub-Signature-256 checks, the parsing of Meta's webhook payload into
// contacts' messages and delivery statuses, the download of a contact's media, and the
// channel's Sender for the delivery worker (text split at 4,096 characters, members' files as
// media, approved templates, and the 24-hour customer service window enforced before Meta
// is asked).
//
// Every call goes to the Graph API base URL of the configuration (channels.whatsapp.api_url),
// which tests point at whatsapptest, a local server speaking the same protocol.
package whatsapp
