package sqlite

import (
	"wsapi/app"
)

// ChatAutomation reads a chat's automation counters.
func (t *Tx) ChatAutomation(chatID string) (app.ChatAutomation, error) {
	var a app.ChatAutomation
	err := t.row(`SELECT follow_ups, csat_pending FROM chats WHERE id = ?`, chatID).Scan(&a.FollowUps, &a.CSATPending)
	return a, one(err, "chat")
}

// SetChatAutomation writes a chat's automation counters.
func (t *Tx) SetChatAutomation(chatID string, a app.ChatAutomation) error {
	return t.execOne("chat", `UPDATE chats SET follow_ups = ?, csat_pending = ? WHERE id = ?`,
		a.FollowUps, a.CSATPending, chatID)
}

// ScheduleFollowUp inserts a waiting follow-up run for the chat; a run already waiting
// (the contact just wrote) wins and nothing is inserted.
func (t *Tx) ScheduleFollowUp(r app.Run) error {
	_, err := t.exec(`INSERT INTO assistant_runs (id, org_id, chat_id, due_at, created_at, follow_up) VALUES (?,?,?,?,?,1)
		ON CONFLICT (chat_id) WHERE message_id IS NULL DO NOTHING`, r.ID, r.OrgID, r.ChatID, r.DueAt, r.CreatedAt)
	t.queue(WorkRuns, err == nil)
	return err
}

// AutoResolveCandidates answers open chats whose assistant has enable_auto_resolve on and
// whose last message is a finished assistant message created at or before cutoff.
func (t *Tx) AutoResolveCandidates(cutoff app.Time, limit int) ([]app.ChatRef, error) {
	return t.chatRefs(`SELECT c.org_id, c.id FROM chats c
		JOIN assistants a ON a.id = c.assistant_id
		JOIN chat_messages m ON m.id = c.last_message_id
		WHERE c.state = 'OPEN' AND a.enabled AND NOT a.deleted
		AND json_extract(a.config, '$.conversation.enable_auto_resolve') = 1
		AND m.role = 'assistant' AND m.status = 'COMPLETED' AND m.created_at <= ?
		ORDER BY m.created_at, c.id LIMIT ?`, cutoff, limit)
}

// DueFollowUps answers open chats whose follow_up_at has come.
func (t *Tx) DueFollowUps(now app.Time, limit int) ([]app.ChatRef, error) {
	return t.chatRefs(`SELECT org_id, id FROM chats WHERE follow_up_at IS NOT NULL AND follow_up_at <= ?
		AND state = 'OPEN' ORDER BY follow_up_at, id LIMIT ?`, now, limit)
}

func (t *Tx) chatRefs(query string, args ...any) ([]app.ChatRef, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(s rowScanner) (r app.ChatRef, err error) {
		return r, s.Scan(&r.OrgID, &r.ID)
	})
}
