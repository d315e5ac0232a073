package sqlite

import (
	"fmt"
	"slices"

	"wsapi/app"
	"wsapi/app/vcache"
)

// CacheChats keeps up to n loaded chats in memory for inbox pages (0: none). They are kept
// as the inbox shows them (row, members, last message) under their version (migration
// 00011): a write to one chat changes every inbox page of its organization, but only that
// chat, so a page read again after it loads one chat instead of a hundred. Chats are reused
// only at the version they were loaded at, so never stale. Search views (inboxview.go) are
// kept too, within the same bound.
func (db *DB) CacheChats(n int) {
	db.chats, db.views = nil, nil
	if n > 0 {
		db.chats = vcache.New[int64, app.Chat](n)
		db.views = &viewCache{views: vcache.New[string, searchView](n)}
		if db.probe == nil {
			db.probe, _ = openProbe() // none: changed chats are tested in the index (indexHits)
		}
	}
}

// loadChatsBySeq loads the chats of seqs, in that order. In a read transaction, chats whose
// version is the one cached come from the cache; the others are loaded and cached.
func (t *Tx) loadChatsBySeq(seqs []int64) ([]app.Chat, error) {
	cache := t.db.chats
	if cache == nil || !t.readOnly {
		return t.loadChatsInOrder(seqs)
	}
	versions, err := t.chatVersions(seqs)
	if err != nil {
		return nil, err
	}
	out := make([]app.Chat, len(seqs))
	var missing []int64
	var at []int // where each missing chat goes in out
	for i, seq := range seqs {
		if v, known := versions[seq]; known {
			if c, ok := cache.Get(seq, v); ok {
				out[i] = c
				continue
			}
		}
		missing, at = append(missing, seq), append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	loaded, err := t.loadChatsInOrder(missing)
	if err != nil {
		return nil, err
	}
	for j, seq := range missing {
		out[at[j]] = loaded[j]
		if v, known := versions[seq]; known {
			cache.Put(seq, v, loaded[j], 1)
		}
	}
	return out, nil
}

// loadChatsInOrder loads the chats of seqs, in that order; every seq must name a chat.
func (t *Tx) loadChatsInOrder(seqs []int64) ([]app.Chat, error) {
	sorted := slices.Sorted(slices.Values(seqs))
	chats, err := t.loadChats(`SELECT `+chatColumns+chatFrom+` WHERE c.seq IN (SELECT value FROM json_each(?))
		ORDER BY c.seq`, jsonText(sorted))
	if err != nil {
		return nil, err
	}
	if len(chats) != len(sorted) {
		return nil, fmt.Errorf("sqlite: %d of %d chats found", len(chats), len(sorted))
	}
	at := make(map[int64]int, len(sorted))
	for i, seq := range sorted {
		at[seq] = i
	}
	out := make([]app.Chat, len(seqs))
	for i, seq := range seqs {
		out[i] = chats[at[seq]]
	}
	return out, nil
}

// chatVersions answers the version of each chat of seqs (migration 00011).
func (t *Tx) chatVersions(seqs []int64) (map[int64]int64, error) {
	pairs, err := queryAll(t, func(r rowScanner) (p [2]int64, err error) { return p, r.Scan(&p[0], &p[1]) },
		`SELECT chat_seq, version FROM chat_versions WHERE chat_seq IN (SELECT value FROM json_each(?))`, jsonText(seqs))
	if err != nil {
		return nil, err
	}
	versions := make(map[int64]int64, len(pairs))
	for _, p := range pairs {
		versions[p[0]] = p[1]
	}
	return versions, nil
}
