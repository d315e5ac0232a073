// Package email is the email channel (DESIGN.md, "Channels", Email; docs/channels.md):
// Receiver takes one raw RFC 5322 message for an email integration (from the SMTP listener
// here, or the IMAP poller of package mailbox), parses it with go-message (charsets, HTML to
// text, quoted replies and signatures trimmed, attachments to chat files, the raw message kept),
// checks DKIM, SPF and DMARC, threads it into a chat (Message-ID references, reply+<token>
// addresses, the sender checked against the chat's contact) and starts the assistant's run
// unless the mail is an auto-reply, fails DMARC or the contact had its hourly share of
// answers; DSNs feed the suppression list. Listener is the inbound SMTP server (go-smtp): it
// stores each accepted mail in the inbound queue, answers 250, and the inbound worker hands
// the mail back to Receiver.Take (queue.go, order.go; docs/decisions/email-queue.md). Sender
// the delivery worker's outbound connector (threaded, DKIM-signed through app/mail),
// Connector the integration's set-up check.
package email
