package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"wsapi/app"
)

// listInboxSearch answers a page of the inbox with a search term (q, the FTS query of
// f.Search), and its count unless known (total >= 0). SQLite would test each chat of the
// other filters against an index built from the search hits, once for the count and again
// for the page (about 0.3 µs a probe, 12 ms for 15,000 chats). Here both sets are read once,
// each as one string (the hits' chat seqs straight from the full-text indexes, the filters'
// chat seqs in inbox order from the inbox index), and intersected in Go with a bitmap; only
// the page's chats are then loaded.
func (t *Tx) listInboxSearch(orgID, q string, f app.InboxFilter, after *app.InboxCursor, offset, limit, total int) ([]app.Chat, int, error) {
	hits, err := t.searchHits(orgID, q, app.PhoneDigits(f.Search))
	if err != nil {
		return nil, 0, err
	}
	f.Search = ""
	where, args := inboxWhere(orgID, f)
	var page []int64
	if total < 0 {
		page, total, err = t.searchWhole(where, args, hits, after, offset, limit)
	} else {
		page, err = t.searchPage(where, args, hits, after, offset, limit)
	}
	if err != nil || len(page) == 0 {
		return []app.Chat{}, total, err
	}
	chats, err := t.loadChatsBySeq(page)
	return chats, total, err
}

// searchWhole reads every chat of the filters once: the matches are the count, and the page
// is the ones after the cursor, past offset.
func (t *Tx) searchWhole(where string, args []any, hits seqSet, after *app.InboxCursor, offset, limit int) ([]int64, int, error) {
	// above flags the chats at or above the cursor: the page starts after them.
	above := "0"
	if after != nil {
		above = "(c.updated_at, c.id) >= (?, ?)"
		args = append([]any{after.UpdatedAt, after.ID}, args...)
	}
	var seqs string
	var skip int
	// The ORDER BY of the subquery is the order group_concat sees the rows in.
	err := t.row(`SELECT COALESCE(group_concat(seq), ''), COALESCE(SUM(above), 0) FROM (SELECT c.seq, `+above+` AS above
		FROM chats c WHERE `+where+` ORDER BY c.updated_at DESC, c.id DESC)`, args...).Scan(&seqs, &skip)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	var page []int64
	matched, past, i := 0, 0, 0
	_, err = eachSeq(seqs, func(seq int64) bool {
		if hits.has(seq) {
			matched++
			if i >= skip {
				if past++; past > offset && len(page) < limit {
					page = append(page, seq)
				}
			}
		}
		i++
		return true
	})
	return page, matched, err
}

// searchPage reads the chats of the filters after the cursor in growing slices, until the
// page is full: a later page of a walk whose count is known reads about as many chats as it
// needs.
func (t *Tx) searchPage(where string, args []any, hits seqSet, after *app.InboxCursor, offset, limit int) ([]int64, error) {
	if after != nil {
		where += " AND (c.updated_at, c.id) < (?, ?)"
		args = append(args, after.UpdatedAt, after.ID)
	}
	var page []int64
	past := 0
	for from, slice := 0, 1024; ; from, slice = from+slice, slice*4 {
		var seqs string
		err := t.row(`SELECT COALESCE(group_concat(seq), '') FROM (SELECT c.seq FROM chats c WHERE `+where+`
			ORDER BY c.updated_at DESC, c.id DESC LIMIT ? OFFSET ?)`, append(args, slice, from)...).Scan(&seqs)
		if err != nil {
			return nil, mapErr(err)
		}
		n, err := eachSeq(seqs, func(seq int64) bool {
			if hits.has(seq) {
				if past++; past > offset {
					page = append(page, seq)
				}
			}
			return len(page) < limit
		})
		if err != nil || len(page) == limit || n < slice {
			return page, err
		}
	}
}

// eachSeq calls fn with each number of a group_concat list of chat seqs until fn answers
// false, and answers how many it read.
func eachSeq(list string, fn func(int64) bool) (int, error) {
	n := 0
	if list == "" {
		return 0, nil
	}
	for part := range strings.SplitSeq(list, ",") {
		seq, err := strconv.ParseUint(part, 10, 63)
		if err != nil {
			return n, fmt.Errorf("sqlite: chat seq %q: %w", part, err)
		}
		n++
		if !fn(int64(seq)) {
			break
		}
	}
	return n, nil
}

// seqSet holds chat seqs, one bit each.
type seqSet []uint64

func (s seqSet) has(seq int64) bool {
	return seq >= 0 && int(seq>>6) < len(s) && s[seq>>6]&(1<<(seq&63)) != 0
}

// searchHits answers the chats whose messages, title or contact match the FTS query: a
// message's rowid is (chat seq << 32) | message seq (migration 00008), a chat's meta rowid is
// its seq. Hits of every organization; the caller's filters keep its own. A search that is
// a phone number (digits, app.PhoneDigits) also finds the organization's chats whose channel
// phone holds those digits anywhere, as the contacts list does: the FTS index only has
// whole digit groups, so "5551234567" would miss "+1 555 123 4567".
func (t *Tx) searchHits(orgID, q, digits string) (seqSet, error) {
	var messages, meta, phones string
	err := t.row(`SELECT (SELECT COALESCE(group_concat(rowid >> 32), '') FROM chat_message_fts WHERE chat_message_fts MATCH ?1),
		(SELECT COALESCE(group_concat(rowid), '') FROM chat_meta_fts WHERE chat_meta_fts MATCH ?1),
		(SELECT COALESCE(group_concat(c.seq), '') FROM contact_channels ch JOIN chats c ON c.contact_channel_id = ch.id
			WHERE ?3 <> '' AND ch.org_id = ?2 AND ch.phone_norm <> '' AND ch.phone_norm LIKE ?3 ESCAPE '\')`,
		q, orgID, likePattern(digits)).Scan(&messages, &meta, &phones)
	if err != nil {
		return nil, mapErr(err)
	}
	var set seqSet
	for _, list := range []string{messages, meta, phones} {
		_, err := eachSeq(list, func(seq int64) bool {
			if w := int(seq >> 6); w >= len(set) {
				set = append(set, make(seqSet, w+1-len(set))...)
			}
			set[seq>>6] |= 1 << (seq & 63)
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}
