package sqlite

import (
	"encoding/json"
	"fmt"
	"strings"

	"wsapi/app"
)

const knowledgeColumns = `id, org_id, assistant_id, parent_content_id, type, title, content, size, status, error,
	chunks_count, chunks_processed, created_at, updated_at`

func scanKnowledge(r rowScanner) (app.KnowledgeContent, error) {
	var k app.KnowledgeContent
	var body string
	err := r.Scan(&k.ID, &k.OrgID, &k.AssistantID, &k.ParentContentID, &k.Type, &k.Title, &body, &k.Size, &k.Status,
		&k.Error, &k.ChunksCount, &k.ChunksProcessed, &k.CreatedAt, &k.UpdatedAt)
	if err != nil {
		return k, err
	}
	if err := json.Unmarshal([]byte(body), &k.Content); err != nil {
		return k, fmt.Errorf("sqlite: knowledge content: %w", err)
	}
	return k, nil
}

func (t *Tx) loadKnowledge(query string, args ...any) ([]app.KnowledgeContent, error) {
	return queryAll(t, scanKnowledge, query, args...)
}

// CreateKnowledge inserts a content and, for a FILE, its bytes.
func (t *Tx) CreateKnowledge(k app.KnowledgeContent) error {
	if _, err := t.exec(`INSERT INTO knowledge_contents (`+knowledgeColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		k.ID, k.OrgID, k.AssistantID, k.ParentContentID, k.Type, k.Title, jsonText(k.Content), k.Size, k.Status, k.Error,
		k.ChunksCount, k.ChunksProcessed, k.CreatedAt, k.UpdatedAt); err != nil {
		return err
	}
	t.queueKnowledge(k)
	if k.Data == nil {
		return nil
	}
	_, err := t.exec(`INSERT INTO knowledge_files (content_id, data) VALUES (?, ?)`, k.ID, k.Data)
	return err
}

// GetKnowledge reads a content of an assistant with its children.
func (t *Tx) GetKnowledge(orgID, assistantID, id string) (app.KnowledgeContent, error) {
	ks, err := t.loadKnowledge(`SELECT `+knowledgeColumns+` FROM knowledge_contents WHERE org_id = ? AND assistant_id = ? AND id = ?`,
		orgID, assistantID, id)
	if err != nil {
		return app.KnowledgeContent{}, err
	}
	if len(ks) == 0 {
		return app.KnowledgeContent{}, app.NotFound("knowledge content")
	}
	return ks[0], t.attachChildren(ks)
}

func (t *Tx) attachChildren(ks []app.KnowledgeContent) error {
	ids := make([]string, 0, len(ks))
	index := map[string]int{}
	for i, k := range ks {
		if k.Type == "URL" && k.ParentContentID == nil {
			ids, index[k.ID] = append(ids, k.ID), i
			ks[i].Children = []app.KnowledgeContent{}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	children, err := t.loadKnowledge(`SELECT `+knowledgeColumns+` FROM knowledge_contents
		WHERE parent_content_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, rowid`, jsonText(ids))
	for _, c := range children {
		i := index[*c.ParentContentID]
		ks[i].Children = append(ks[i].Children, c)
	}
	return err
}

// GetKnowledgeData reads a FILE's bytes.
func (t *Tx) GetKnowledgeData(id string) ([]byte, error) {
	var data []byte
	err := t.row(`SELECT data FROM knowledge_files WHERE content_id = ?`, id).Scan(&data)
	return data, one(err, "file")
}

// ListKnowledge answers a page of top-level contents, newest first.
func (t *Tx) ListKnowledge(orgID, assistantID string, f app.KnowledgeFilter, after *app.KnowledgeCursor, offset, limit int) ([]app.KnowledgeContent, int, error) {
	conds := []string{"org_id = ?", "assistant_id = ?", "parent_content_id IS NULL"}
	args := []any{orgID, assistantID}
	if f.Search != "" {
		conds, args = append(conds, `(title LIKE ? ESCAPE '\' OR json_extract(content, '$.url') LIKE ? ESCAPE '\')`),
			append(args, likePattern(f.Search), likePattern(f.Search))
	}
	if f.Type != "" && f.Type != "ALL" {
		conds, args = append(conds, "type = ?"), append(args, f.Type)
	}
	if f.Status != "" && f.Status != "ALL" {
		conds, args = append(conds, "status = ?"), append(args, f.Status)
	}
	where := strings.Join(conds, " AND ")
	total, err := t.count(`SELECT COUNT(*) FROM knowledge_contents WHERE `+where, args...)
	if err != nil {
		return nil, 0, err
	}
	if after != nil {
		where += " AND (created_at < ? OR (created_at = ? AND id < ?))"
		args = append(args, after.CreatedAt, after.CreatedAt, after.ID)
	}
	ks, err := t.loadKnowledge(`SELECT `+knowledgeColumns+` FROM knowledge_contents WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	return ks, total, t.attachChildren(ks)
}

// DeleteKnowledge removes a content; its chunks, file and children cascade.
func (t *Tx) DeleteKnowledge(orgID, assistantID, id string) error {
	return t.execOne("knowledge content", `DELETE FROM knowledge_contents WHERE org_id = ? AND assistant_id = ? AND id = ?`,
		orgID, assistantID, id)
}

// ClaimKnowledge takes, for each organization, its oldest PENDING contents and PROCESSING ones
// with a lapsed lease (a short walk of the partial index knowledge_claim per organization),
// picks among them round-robin across organizations and assistants within the room's caps
// (app.ClaimRoom), and marks the picked ones PROCESSING under a lease.
func (t *Tx) ClaimKnowledge(now, leaseUntil app.Time, room app.ClaimRoom) ([]app.KnowledgeContent, error) {
	ids, err := t.pickDue(room, `SELECT k.id, k.org_id, k.assistant_id FROM orgs o
		JOIN knowledge_contents k ON k.id IN (
			SELECT x.id FROM knowledge_contents x INDEXED BY knowledge_claim
			WHERE x.org_id = o.id AND x.parent_content_id IS NULL AND x.status IN ('PENDING', 'PROCESSING')
				AND (x.status = 'PENDING' OR x.lease_until <= ?1)
			ORDER BY x.created_at, x.id LIMIT ?2)
		ORDER BY k.created_at, k.id`, now, room.Limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	if _, err := t.exec(`UPDATE knowledge_contents SET status = 'PROCESSING', error = NULL, lease_until = ?, updated_at = ?
		WHERE id IN (SELECT value FROM json_each(?))`, leaseUntil, now, jsonText(ids)); err != nil {
		return nil, err
	}
	return t.loadKnowledge(`SELECT `+knowledgeColumns+` FROM knowledge_contents
		WHERE id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`, jsonText(ids))
}

// AnyKnowledgeDue tells whether a claim could find a content, without a write transaction.
func (t *Tx) AnyKnowledgeDue(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM knowledge_contents INDEXED BY knowledge_due
		WHERE parent_content_id IS NULL AND status IN ('PENDING', 'PROCESSING')
			AND (status = 'PENDING' OR lease_until <= ?))`, now).Scan(&due)
	return due, mapErr(err)
}

// ResetKnowledge drops a content's chunks and children and zeroes its progress.
func (t *Tx) ResetKnowledge(id string) error {
	if _, err := t.exec(`DELETE FROM knowledge_chunks WHERE content_id = ?`, id); err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM knowledge_contents WHERE parent_content_id = ?`, id); err != nil {
		return err
	}
	_, err := t.exec(`UPDATE knowledge_contents SET chunks_count = 0, chunks_processed = 0 WHERE id = ?`, id)
	return err
}

// queueKnowledge marks the transaction as queuing work when k waits for the processor, so
// the commit nudges it.
func (t *Tx) queueKnowledge(k app.KnowledgeContent) {
	t.queue(WorkKnowledge, k.Status == "PENDING" && k.ParentContentID == nil)
}

// SetKnowledgeProgress writes status, error and chunk counters.
func (t *Tx) SetKnowledgeProgress(k app.KnowledgeContent) error {
	lease := "lease_until"
	if k.Status != "PROCESSING" {
		lease = "NULL"
	}
	t.queueKnowledge(k)
	return t.execOne("knowledge content", `UPDATE knowledge_contents SET status = ?, error = ?, chunks_count = ?,
		chunks_processed = ?, size = ?, lease_until = `+lease+`, updated_at = ? WHERE id = ?`,
		k.Status, k.Error, k.ChunksCount, k.ChunksProcessed, k.Size, k.UpdatedAt, k.ID)
}

// AddChunks stores chunks in order from position first.
func (t *Tx) AddChunks(k app.KnowledgeContent, first int, texts []string) error {
	return t.insertBatches(`INSERT INTO knowledge_chunks (content_id, org_id, assistant_id, position, text)`, 5, len(texts),
		func(i int) []any { return []any{k.ID, k.OrgID, k.AssistantID, first + i, texts[i]} })
}

// SearchChunks ranks an assistant's chunks for a query with bm25 (best first).
func (t *Tx) SearchChunks(orgID, assistantID, query string, limit int) ([]app.Chunk, error) {
	rows, err := t.query(`SELECT c.content_id, k.title, c.position, c.text, bm25(knowledge_fts) AS rank
		FROM knowledge_fts JOIN knowledge_chunks c ON c.seq = knowledge_fts.rowid
		JOIN knowledge_contents k ON k.id = c.content_id
		WHERE knowledge_fts MATCH ? AND c.org_id = ? AND c.assistant_id = ?
		ORDER BY rank LIMIT ?`, ftsQuery(query), orgID, assistantID, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (c app.Chunk, err error) {
		err = r.Scan(&c.ContentID, &c.Title, &c.Position, &c.Text, &c.Score)
		c.Score = -c.Score // bm25 is lower-is-better; answer higher-is-better
		return c, err
	})
}
