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
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []app.KnowledgeContent{}
	for rows.Next() {
		k, err := scanKnowledge(rows)
		if err != nil {
			return nil, mapErr(err)
		}
		out = append(out, k)
	}
	return out, mapErr(rows.Err())
}

// CreateKnowledge inserts a content and, for a FILE, its bytes.
func (t *Tx) CreateKnowledge(k app.KnowledgeContent) error {
	if _, err := t.exec(`INSERT INTO knowledge_contents (`+knowledgeColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		k.ID, k.OrgID, k.AssistantID, k.ParentContentID, k.Type, k.Title, jsonText(k.Content), k.Size, k.Status, k.Error,
		k.ChunksCount, k.ChunksProcessed, k.CreatedAt, k.UpdatedAt); err != nil {
		return err
	}
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

// ClaimKnowledge takes the oldest PENDING content, or a PROCESSING one with a lapsed lease.
func (t *Tx) ClaimKnowledge(now, leaseUntil app.Time) (app.KnowledgeContent, error) {
	ks, err := t.loadKnowledge(`SELECT `+knowledgeColumns+` FROM knowledge_contents
		WHERE parent_content_id IS NULL AND (status = 'PENDING' OR (status = 'PROCESSING' AND lease_until <= ?))
		ORDER BY created_at, id LIMIT 1`, now)
	if err != nil {
		return app.KnowledgeContent{}, err
	}
	if len(ks) == 0 {
		return app.KnowledgeContent{}, app.NotFound("knowledge content")
	}
	k := ks[0]
	k.Status, k.Error, k.UpdatedAt = "PROCESSING", nil, now
	_, err = t.exec(`UPDATE knowledge_contents SET status = 'PROCESSING', error = NULL, lease_until = ?, updated_at = ?
		WHERE id = ?`, leaseUntil, now, k.ID)
	return k, err
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

// SetKnowledgeProgress writes status, error and chunk counters.
func (t *Tx) SetKnowledgeProgress(k app.KnowledgeContent) error {
	lease := "lease_until"
	if k.Status != "PROCESSING" {
		lease = "NULL"
	}
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
	defer rows.Close()
	out := []app.Chunk{}
	for rows.Next() {
		var c app.Chunk
		if err := rows.Scan(&c.ContentID, &c.Title, &c.Position, &c.Text, &c.Score); err != nil {
			return nil, mapErr(err)
		}
		c.Score = -c.Score // bm25 is lower-is-better; answer higher-is-better
		out = append(out, c)
	}
	return out, mapErr(rows.Err())
}
