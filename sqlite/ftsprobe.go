package sqlite

import (
	"database/sql"
	"fmt"
)

// An FTS5 prefix query ("hello"*, as every search is: ftsQuery) first merges the doclists
// of every term with the prefix across the whole index, even when the query is bounded to
// one chat's rowid range: 15 ms for a word in 10% of a million messages, as much as
// finding all its hits. To test a few changed chats against a word, their indexed texts are
// copied instead into an empty full-text table of the same tokenizer in a private
// in-memory database, and the same query runs there: the same texts, tokenizer and query
// give the same matches, at a cost that follows the chats' size (well under a
// millisecond for a few dozen messages).

// probeTokenizer must be the tokenizer of chat_message_fts and chat_meta_fts (migrations
// 00004 and 00008).
const probeTokenizer = `unicode61 remove_diacritics 2`

// probeMaxRows bounds the texts copied per test; chats with more are tested in the index.
const probeMaxRows = 2000

// openProbe opens the pool of in-memory databases for the probe (each connection its own).
func openProbe() (*sql.DB, error) {
	p, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("sqlite: open probe: %w", err)
	}
	p.SetMaxOpenConns(2)
	p.SetMaxIdleConns(2)
	p.SetConnMaxLifetime(0)
	return p, nil
}

// wordHits answers which chats of seqs match the FTS query q by a message's text or their
// meta text (title, contact), as searchHits finds them in the whole index.
func (t *Tx) wordHits(q string, seqs []int64) (map[int64]bool, error) {
	hits := map[int64]bool{}
	if len(seqs) == 0 {
		return hits, nil
	}
	// CROSS JOIN: each chat's rows are a rowid range of the index's table (else SQLite may
	// scan the whole index and test every row against the list).
	rows, err := t.query(`SELECT seq, text FROM (
		SELECT j.value AS seq, m.text FROM json_each(?1) j CROSS JOIN chat_message_fts m
			WHERE m.rowid BETWEEN j.value << 32 AND (j.value << 32) | 4294967295
		UNION ALL SELECT j.value, t.text FROM json_each(?1) j CROSS JOIN chat_meta_fts t WHERE t.rowid = j.value)
		LIMIT ?2`, jsonText(seqs), probeMaxRows+1)
	if err != nil {
		return nil, err
	}
	type text struct {
		seq  int64
		text sql.NullString
	}
	texts, err := collect(rows, func(r rowScanner) (x text, err error) { return x, r.Scan(&x.seq, &x.text) })
	if err != nil {
		return nil, err
	}
	if len(texts) > probeMaxRows || t.db.probe == nil {
		return t.indexHits(q, seqs)
	}
	conn, err := t.db.probe.Conn(t.ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: probe: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS probe USING fts5(text, seq UNINDEXED, tokenize = '`+probeTokenizer+`')`); err != nil {
		return nil, fmt.Errorf("sqlite: probe: %w", err)
	}
	tx, err := conn.BeginTx(t.ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: probe: %w", err)
	}
	defer tx.Rollback() // the table is left empty for the next test
	for _, x := range texts {
		if _, err := tx.Exec(`INSERT INTO probe (text, seq) VALUES (?, ?)`, x.text, x.seq); err != nil {
			return nil, fmt.Errorf("sqlite: probe: %w", err)
		}
	}
	matched, err := tx.Query(`SELECT DISTINCT seq FROM probe WHERE probe MATCH ?`, q)
	if err != nil {
		return nil, fmt.Errorf("sqlite: probe: %w", err)
	}
	found, err := collect(matched, func(r rowScanner) (seq int64, err error) { return seq, r.Scan(&seq) })
	for _, seq := range found {
		hits[seq] = true
	}
	return hits, err
}

// indexHits is wordHits from the full-text indexes, bounded to each chat's rows.
func (t *Tx) indexHits(q string, seqs []int64) (map[int64]bool, error) {
	rows, err := t.query(`SELECT j.value FROM json_each(?) j
		WHERE EXISTS (SELECT 1 FROM chat_message_fts WHERE chat_message_fts MATCH ?2
				AND rowid BETWEEN j.value << 32 AND (j.value << 32) | 4294967295)
			OR EXISTS (SELECT 1 FROM chat_meta_fts WHERE chat_meta_fts MATCH ?2 AND rowid = j.value)`, jsonText(seqs), q)
	if err != nil {
		return nil, err
	}
	found, err := collect(rows, func(r rowScanner) (seq int64, err error) { return seq, r.Scan(&seq) })
	hits := map[int64]bool{}
	for _, seq := range found {
		hits[seq] = true
	}
	return hits, err
}
