// Package mailbox is the IMAP side of the email channel: an email integration whose config has
// `inbound: imap` has its mailbox polled (every email.imap_poll, and by IDLE where the server
// offers it), and every new mail is handed to the email channel's receiver as if it had arrived
// over SMTP (docs/channels.md, "IMAP set-up for a hosted mailbox").
//
// Where a mailbox stands is a cursor in the database (its UIDVALIDITY and the last UID
// imported), so a restart imports nothing twice and loses nothing. A mailbox that cannot be
// reached marks its integration FAILED with the reason, and ACTIVE again on the next poll that
// works. The poller holds a bounded number of connections, polls one integration once at a
// time, takes organizations in turn, and recovers a panic per integration.
//
// The same connection check is the set-up check of an imap integration (Dialer.Verify): create
// and PATCH save it FAILED, saying why, when its mailbox cannot be opened.
package mailbox
