// Package inbound takes in what messaging-app providers (Telegram, WhatsApp, and the next
// ones) POST to the public route /hooks/{type}/{asi}, for any channel whose connector
// implements channel.Inbound.
//
// The hook is thin and answers the provider fast (Receiver): it finds the integration (an
// unknown, deleted or other-type one is 404, never a hint), lets the connector check the
// request (secret or signature, constant time) before anything is stored, then keeps the raw
// body in the Spool (a file with a writer of its own: the answer never waits for the store's
// writer) and answers 200. The Worker's relay moves the spooled bodies into the store's queue
// (the channel_updates table), many a write. The Worker, on the shared claim
// loop (app/claim), takes the queued bodies fairly across organizations: the connector parses
// each into contacts' messages and delivery statuses; a message already taken in (the
// provider's id, channel_seen) is dropped; media are downloaded into chat files through the
// connector's channel.MediaFetcher; then the domain's rule "a channel contact wrote"
// (app.Service.ChannelMessage) finds or makes the contact, joins or opens the chat and starts
// the assistant's run. A status moves the delivery of the reply the provider names.
//
// A channel that queues its own input and stores it its own way implements channel.Taker:
// the email channel's SMTP listener queues each accepted mail with Queue, and the worker
// hands it back whole to the email Receiver (docs/decisions/email-queue.md). Bodies live in
// a table of their own (channel_update_bodies), which leases never rewrite.
package inbound
