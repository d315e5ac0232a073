package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"wsapi/app"
)

// listInboxSearch answers a page of the inbox with a search term (q, the FTS query of
// f.Search) and its count (the caller's when it gives one, total >= 0): the window of the
// view's list (searchSeqs) after the cursor, past offset. Only the page's chats are loaded.
func (t *Tx) listInboxSearch(orgID, q string, f app.InboxFilter, after *app.InboxCursor, offset, limit, total int) ([]app.Chat, int, error) {
	seqs, err := t.searchSeqs(orgID, q, f)
	if err != nil {
		return nil, 0, err
	}
	if total < 0 {
		total = len(seqs)
	}
	start := 0
	if after != nil {
		if start, err = t.seqsBefore(seqs, after.UpdatedAt, after.ID, true); err != nil {
			return nil, 0, err
		}
	}
	start = min(start+offset, len(seqs))
	page := seqs[start:min(start+limit, len(seqs))]
	if len(page) == 0 {
		return []app.Chat{}, total, nil
	}
	chats, err := t.loadChatsBySeq(page)
	return chats, total, err
}

// searchAll reads the whole list of a search view. SQLite would test each chat of the
// other filters against an index built from the search hits (about 0.3 µs a probe, 12 ms
// for 15,000 chats). Here both sets are read once, each as one string (the hits' chat seqs
// straight from the full-text indexes, the filters' chat seqs in inbox order from the inbox
// index), and intersected in Go with a bitmap.
func (t *Tx) searchAll(orgID, q string, f app.InboxFilter) ([]int64, error) {
	hits, err := t.searchHits(orgID, q, app.PhoneDigits(f.Search))
	if err != nil {
		return nil, err
	}
	f.Search = ""
	where, args := inboxWhere(orgID, f)
	var list string
	// The ORDER BY of the subquery is the order group_concat sees the rows in.
	err = t.row(`SELECT COALESCE(group_concat(seq), '') FROM (SELECT c.seq FROM chats c WHERE `+where+`
		ORDER BY c.updated_at DESC, c.id DESC)`, args...).Scan(&list)
	if err != nil {
		return nil, mapErr(err)
	}
	seqs := []int64{}
	_, err = eachSeq(list, func(seq int64) bool {
		if hits.has(seq) {
			seqs = append(seqs, seq)
		}
		return true
	})
	return seqs, err
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
