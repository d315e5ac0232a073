// Package whatsapptest is a local WhatsApp Cloud API for tests: the Graph API routes the
// channel calls (GET /{phone_number_id}, POST /{phone_number_id}/messages and /media,
// GET /{media_id} and the media download), checked and answered as Meta documents them
// (bearer token, messaging_product, the error object with code, type, error_subcode and
// fbtrace_id), and webhook deliveries to the server under test, signed with
// X-Hub-Signature-256 as Meta signs them.
package whatsapptest
