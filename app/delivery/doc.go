// Package delivery is the worker that sends replies to contacts: every member's message and
// every finished assistant reply of a chat whose integration the server delivers (the web
// widget, email, Telegram, WhatsApp) is queued in the reply's own transaction
// (app/messagedelivery.go) and sent here, through the channel's channel.Sender.
//
// It runs on the shared claim loop (app/claim): claims are fair across organizations and,
// within one, across chats (one reply of a chat in flight at a time, so a chat's replies
// leave in order unless one waits for a retry), leased, retried on a schedule, and held to a
// rate per channel type. A panic in one send fails that attempt only.
package delivery
