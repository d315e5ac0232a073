package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"wsapi/app"
)

// TestWordHitsProbeAgreesWithIndex: the in-memory probe finds exactly the chats the
// full-text indexes find for the same query, bounded to the same chats (prefixes, several
// words that must share a message, diacritics, punctuation, meta text, a chat without text).
func TestWordHitsProbeAgreesWithIndex(t *testing.T) {
	t.Parallel()
	db := openInternal(t)
	db.CacheChats(100)
	messages := map[int64][]string{
		1: {"Where is my refund?", "the invoice is late"},
		2: {"refund for invoice 42", "hello"},
		3: {"Ça coûte trop cher, ÉCOLE", "o'brien called"},
		4: {"zebra-crossing at 5pm", "ZEBRAS"},
		5: {},
	}
	meta := map[int64]string{1: "Carol Refundson", 3: "École Maternelle", 5: "Invoice dept +1 555 010 0001"}
	for seq, texts := range messages {
		for i, text := range texts {
			if _, err := db.writer.Exec(`INSERT INTO chat_message_fts (rowid, text, chat_id) VALUES (?, ?, ?)`,
				seq<<32|int64(i+1), text, fmt.Sprint("chat_", seq)); err != nil {
				t.Fatal(err)
			}
		}
		if m, ok := meta[seq]; ok {
			if _, err := db.writer.Exec(`INSERT INTO chat_meta_fts (rowid, text, chat_id) VALUES (?, ?, ?)`, seq, m, fmt.Sprint("chat_", seq)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, table := range []string{"chat_message_fts", "chat_meta_fts"} {
		var schema string
		if err := db.writer.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, table).Scan(&schema); err != nil ||
			!strings.Contains(schema, "tokenize = '"+probeTokenizer+"'") {
			t.Errorf("%s: %q (%v) is not tokenized as the probe (%s)", table, schema, err, probeTokenizer)
		}
	}
	seqs := []int64{1, 2, 3, 4, 5, 6}
	wantHits := map[string]string{"refund invoice": "map[2:true]", "ecole": "map[3:true]", "ref": "map[1:true 2:true]",
		"zebra": "map[4:true]", "nothing": "map[]"}
	for _, search := range []string{"refund", "ref", "refund invoice", "invoice refund", "ecole", "école", "ca", "o'brien", "brien",
		"zebra", "zebras", "crossing 5pm", "hello", "555", "carol refund", "nothing"} {
		q := ftsQuery(search)
		err := db.Read(context.Background(), func(atx app.Tx) error {
			tx := atx.(*Tx)
			probe, err := tx.wordHits(q, seqs)
			if err != nil {
				return err
			}
			index, err := tx.indexHits(q, seqs)
			if err != nil {
				return err
			}
			if fmt.Sprint(probe) != fmt.Sprint(index) {
				t.Errorf("%q: probe %v, index %v", search, probe, index)
			}
			if want, ok := wantHits[search]; ok && fmt.Sprint(probe) != want {
				t.Errorf("%q: %v, want %s", search, probe, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
