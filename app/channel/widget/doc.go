// Package widget is the web widget channel (the `internal` integration): the loader script
// a site embeds (/widget.js), the chat page served in its iframe (/widget/{asi}) with its
// embedded, content-hashed assets, the visitor's views of messages and chats (what a visitor
// may read of them), and the channel's Sender for the delivery worker: the widget reads
// replies over its own stream, so sending one is recording it DELIVERED.
//
// The visitor API's handlers sit in app/api's one route table, marked public; the rules
// (sessions, identity, which chat a message joins) are app's (app/visitors.go).
package widget
