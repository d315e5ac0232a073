package sqlite

import (
	"database/sql"
	"errors"

	"wsapi/app"
)

// InsertStreamEvent appends an event to the streams' outbox; after the commit the store
// nudges the hub (OnStreamed). A transaction holds at most one event of a type per message:
// a second one (a service method and its caller both emitting) replaces the first's data.
func (t *Tx) InsertStreamEvent(e app.StreamEvent) (int64, error) {
	key := e.Type + "\x00" + e.MessageID
	if i, ok := t.messageEvents[key]; ok && e.MessageID != "" {
		stored := &t.streamed[i]
		_, err := t.exec(`UPDATE stream_events SET data = ? WHERE seq = ?`, string(e.Data), stored.Seq)
		if err == nil {
			stored.Data = e.Data
		}
		return stored.Seq, err
	}
	res, err := t.exec(`INSERT INTO stream_events (org_id, chat_id, message_id, type, area, data, created_at)
		VALUES (?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?, ?)`,
		e.OrgID, e.ChatID, e.MessageID, e.Type, e.Area, string(e.Data), e.CreatedAt)
	if err != nil {
		return 0, err
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	e.Seq = seq
	t.streamed = append(t.streamed, e)
	if e.MessageID != "" {
		if t.messageEvents == nil {
			t.messageEvents = map[string]int{}
		}
		t.messageEvents[key] = len(t.streamed) - 1
	}
	return seq, nil
}

const streamEventColumns = `seq, org_id, COALESCE(chat_id, ''), COALESCE(message_id, ''), type, area, data, created_at`

// StreamEventsAfter answers up to limit events with seq > after, oldest first: of one
// organization (or of all when orgID is empty) and of one chat (or all when chatID is empty).
func (t *Tx) StreamEventsAfter(orgID, chatID string, after int64, limit int) ([]app.StreamEvent, error) {
	// One query per scope, so each walks its own index: the key, the organization's, the chat's.
	q := `SELECT ` + streamEventColumns + ` FROM stream_events WHERE seq > ?1 AND ?2 = '' AND ?3 = ''
		ORDER BY seq LIMIT ?4`
	switch {
	case chatID != "":
		q = `SELECT ` + streamEventColumns + ` FROM stream_events WHERE chat_id = ?3 AND seq > ?1 AND org_id = ?2
		ORDER BY seq LIMIT ?4`
	case orgID != "":
		q = `SELECT ` + streamEventColumns + ` FROM stream_events WHERE org_id = ?2 AND seq > ?1 AND ?3 = ''
		ORDER BY seq LIMIT ?4`
	}
	rows, err := t.query(q, after, orgID, chatID, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (e app.StreamEvent, err error) {
		var data string
		err = r.Scan(&e.Seq, &e.OrgID, &e.ChatID, &e.MessageID, &e.Type, &e.Area, &data, &e.CreatedAt)
		e.Data = []byte(data)
		return e, err
	})
}

// GetStreamEvent reads one event of an organization by its seq.
func (t *Tx) GetStreamEvent(orgID string, seq int64) (app.StreamEvent, error) {
	var e app.StreamEvent
	var data string
	err := t.row(`SELECT `+streamEventColumns+` FROM stream_events WHERE seq = ? AND org_id = ?`, seq, orgID).
		Scan(&e.Seq, &e.OrgID, &e.ChatID, &e.MessageID, &e.Type, &e.Area, &data, &e.CreatedAt)
	e.Data = []byte(data)
	return e, one(err, "stream event")
}

// MessageCreatedSeq is the seq of a message's message.created event, or not_found.
func (t *Tx) MessageCreatedSeq(orgID, messageID string) (int64, error) {
	var seq int64
	err := t.row(`SELECT seq FROM stream_events WHERE message_id = ? AND org_id = ? AND type = ? ORDER BY seq LIMIT 1`,
		messageID, orgID, app.StreamMessageCreated).Scan(&seq)
	return seq, one(err, "stream event")
}

// LastStreamSeq is the newest seq, 0 when there is none.
func (t *Tx) LastStreamSeq() (int64, error) {
	var seq sql.NullInt64
	err := t.row(`SELECT MAX(seq) FROM stream_events`).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq.Int64, mapErr(err)
}

// PurgeStreamEvents deletes events created before cutoff. AUTOINCREMENT keeps seq growing
// after the newest rows are purged, so an id is never given twice.
func (t *Tx) PurgeStreamEvents(cutoff app.Time) (int, error) {
	// Up to the first event young enough to keep, in seq order (00023): a clock that stepped
	// back may keep an older event past it for a while, never drop a young one.
	res, err := t.exec(`DELETE FROM stream_events WHERE seq < coalesce(
		(SELECT seq FROM stream_events WHERE created_at >= ? ORDER BY seq LIMIT 1),
		(SELECT max(seq) + 1 FROM stream_events))`, cutoff)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
