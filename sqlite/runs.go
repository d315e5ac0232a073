package sqlite

import (
	"database/sql"

	"wsapi/app"
)

const runColumns = `id, org_id, chat_id, due_at, message_id, owner, lease_until, stop, created_at, follow_up`

func scanRun(r rowScanner) (app.Run, error) {
	var run app.Run
	var msg, stop sql.NullString
	err := r.Scan(&run.ID, &run.OrgID, &run.ChatID, &run.DueAt, &msg, &run.Owner, &run.LeaseUntil, &stop, &run.CreatedAt, &run.FollowUp)
	run.MessageID, run.Stop = msg.String, stop.String
	return run, err
}

func (t *Tx) loadRuns(query string, args ...any) ([]app.Run, error) {
	return queryAll(t, scanRun, query, args...)
}

// ScheduleRun inserts the chat's waiting run, or moves the one already waiting to r.DueAt;
// a waiting follow-up becomes an ordinary run, since the contact wrote.
func (t *Tx) ScheduleRun(r app.Run) error {
	_, err := t.exec(`INSERT INTO assistant_runs (id, org_id, chat_id, due_at, created_at) VALUES (?,?,?,?,?)
		ON CONFLICT (chat_id) WHERE message_id IS NULL DO UPDATE SET due_at = excluded.due_at, follow_up = 0`,
		r.ID, r.OrgID, r.ChatID, r.DueAt, r.CreatedAt)
	t.queue(WorkRuns, err == nil)
	return err
}

// DropWaitingRun deletes the chat's waiting run, if any.
func (t *Tx) DropWaitingRun(chatID string) (bool, error) {
	res, err := t.exec(`DELETE FROM assistant_runs WHERE chat_id = ? AND message_id IS NULL`, chatID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, mapErr(err)
}

// RunsUnderWay answers the chat's runs under way that are not stopped, oldest first.
func (t *Tx) RunsUnderWay(chatID string) ([]app.Run, error) {
	return t.loadRuns(`SELECT `+runColumns+` FROM assistant_runs WHERE chat_id = ? AND message_id IS NOT NULL
		AND stop IS NULL ORDER BY created_at, id`, chatID)
}

// GetRun reads one run.
func (t *Tx) GetRun(id string) (app.Run, error) {
	r, err := scanRun(t.row(`SELECT `+runColumns+` FROM assistant_runs WHERE id = ?`, id))
	return r, one(err, "run")
}

// StopRun records why a run under way must end.
func (t *Tx) StopRun(id, why string) error {
	return t.execOne("run", `UPDATE assistant_runs SET stop = ? WHERE id = ?`, why, id)
}

// DueRuns answers the waiting runs due at now that the room picks. Candidates are each
// organization's longest-due runs (no more per organization than the round could take), so
// one organization's burst cannot fill the list.
func (t *Tx) DueRuns(now app.Time, room app.ClaimRoom) ([]app.Run, error) {
	ids, err := t.pickDue(room, `SELECT r.id, r.org_id, r.chat_id
		FROM (SELECT DISTINCT org_id FROM assistant_runs WHERE message_id IS NULL AND due_at <= ?1) o
		JOIN assistant_runs r ON r.id IN (
			SELECT x.id FROM assistant_runs x WHERE x.org_id = o.org_id AND x.message_id IS NULL AND x.due_at <= ?1
			ORDER BY x.due_at, x.id LIMIT ?2)
		ORDER BY r.due_at, r.id`, now, room.Limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return t.loadRuns(`SELECT `+runColumns+` FROM assistant_runs WHERE id IN (SELECT value FROM json_each(?))
		ORDER BY due_at, id`, jsonText(ids))
}

// AnyRunDue tells whether a waiting run is due, without a write transaction.
func (t *Tx) AnyRunDue(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM assistant_runs WHERE message_id IS NULL AND due_at <= ?)`, now).Scan(&due)
	return due, err
}

// StartRun puts a run under way.
func (t *Tx) StartRun(id, messageID, owner string, leaseUntil app.Time) error {
	return t.execOne("run", `UPDATE assistant_runs SET message_id = ?, owner = ?, lease_until = ? WHERE id = ?`,
		messageID, owner, leaseUntil, id)
}

// RenewRun extends a run's lease.
func (t *Tx) RenewRun(id string, leaseUntil app.Time) error {
	_, err := t.exec(`UPDATE assistant_runs SET lease_until = ? WHERE id = ?`, leaseUntil, id)
	return err
}

// DeleteRun removes a run.
func (t *Tx) DeleteRun(id string) error {
	return t.execOne("run", `DELETE FROM assistant_runs WHERE id = ?`, id)
}

// OrphanRuns answers runs under way of another owner, or whose lease lapsed.
func (t *Tx) OrphanRuns(owner string, now app.Time) ([]app.Run, error) {
	return t.loadRuns(`SELECT `+runColumns+` FROM assistant_runs WHERE message_id IS NOT NULL
		AND (owner <> ? OR lease_until <= ?)`, owner, now)
}

// UpdateRunMessage writes a run's message, model included, only while it is RUNNING.
func (t *Tx) UpdateRunMessage(orgID string, m app.Message) (bool, error) {
	res, err := t.exec(`UPDATE chat_messages SET status=?, model=?, messages=?, error=?, usage=?, text=?, updated_at=?
		WHERE org_id=? AND id=? AND status = 'RUNNING'`, m.Status, m.Model, jsonText(m.Messages), m.Error, usageText(m.Usage),
		m.Text, m.UpdatedAt, orgID, m.ID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, mapErr(err)
}

// UpdateRunText writes a RUNNING message's turns and text (a flush), nothing else.
func (t *Tx) UpdateRunText(orgID, messageID string, turns []app.Turn, text string, at app.Time) (bool, error) {
	res, err := t.exec(`UPDATE chat_messages SET messages=?, text=?, updated_at=? WHERE org_id=? AND id=? AND status = 'RUNNING'`,
		jsonText(turns), text, at, orgID, messageID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, mapErr(err)
}
