package app

// Chat stream event types. The persisted ones are written with EmitStream inside the
// transaction that makes the change, so a watcher never sees what rolled back; message.delta
// is live only (a run's text as it streams) and is rebuilt from the message on resume.
const (
	StreamMessageCreated = "message.created"
	StreamMessageUpdated = "message.updated"
	StreamMessageDelta   = "message.delta"
	StreamChatUpdated    = "chat.updated"
)

// Live receives what is not persisted: the text of runs in flight, as it streams. The run
// loop calls it; the stream hub (app/stream) implements it.
type Live interface {
	// Begin says a run of message messageID is under way (its message.created committed),
	// before any of its text: the listener gets ready then, not on the first token's path.
	Begin(orgID, chatID, messageID string)
	// Delta says message messageID of chatID grew by text, which starts at character offset
	// offset of the message's text.
	Delta(orgID, chatID, messageID string, offset int, text string)
	// Done says the message is no longer in flight (its final state is persisted).
	Done(orgID, chatID, messageID string)
}
