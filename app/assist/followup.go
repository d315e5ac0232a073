package assist

import "wsapi/app"

// FollowUpInstruction is what a follow-up run adds to the system prompt and, as the last
// user turn, to the conversation: every protocol then ends the conversation on a user turn
// (Anthropic requires it), and the model knows it writes a nudge, not a new answer.
const FollowUpInstruction = "The contact has not answered your last message for a while. " +
	"Write one short, friendly follow-up that asks whether they still need help with it. " +
	"Do not repeat your previous message."

// followUpNote is the user turn of a follow-up run; the brackets mark it as a note from the
// system, not the contact's words.
const followUpNote = "[No reply from the contact yet. " + FollowUpInstruction + "]"

// addFollowUp turns a request into a follow-up run's request.
func addFollowUp(req *Request, in app.RunInput) {
	if !in.FollowUp {
		return
	}
	req.FollowUp = true
	req.System += "\n" + FollowUpInstruction + "\n"
	req.Messages = append(req.Messages, Message{Role: RoleUser, Text: followUpNote})
}
