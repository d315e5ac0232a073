package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"golang.org/x/sync/singleflight"

	"wsapi/app"
	"wsapi/app/vcache"
)

// A search view is the list a search of the inbox with its filters answers (no page): its
// chats' seqs in inbox order. Reading one whole costs every chat of the filters (up to all
// of the organization's, 35 ms for 100,000) and every hit of the word, and every write bumps
// the organization's inbox version, after which each cached answer is read again. So views
// are kept here with the version they hold, and a view of an older version is patched from
// the log of changed chats (migration 00022): only those chats are tested again, against
// the filters and the word, and moved, dropped or added by their new (updated_at, id).
// A view whose log has a gap is read whole, so a view is never stale.

// searchView is a view as of the organization's inbox version org and the version of the
// rest of what an answer is made of (the '*' scope and the epoch, migration 00010).
type searchView struct {
	org, rest int64
	seqs      []int64 // read only once cached
	// prev is the view this one replaced (its own prev dropped): a reader whose snapshot
	// began before the last write finds its version there instead of reading whole.
	prev *searchView
}

// at answers the view, or its previous one, held at versions (org, rest).
func (v searchView) at(org, rest int64) (searchView, bool) {
	for _, w := range []*searchView{&v, v.prev} {
		if w != nil && w.org == org && w.rest == rest {
			return *w, true
		}
	}
	return searchView{}, false
}

// base answers the newest of the view and its previous one that can be patched to
// (org, rest): same rest, older org.
func (v searchView) base(org, rest int64) (searchView, bool) {
	for _, w := range []*searchView{&v, v.prev} {
		if w != nil && w.rest == rest && w.org < org {
			return *w, true
		}
	}
	return searchView{}, false
}

// viewCache keeps search views; patched and whole count how views were brought up to date.
type viewCache struct {
	views          *vcache.Cache[string, searchView]
	flight         singleflight.Group
	patched, whole atomic.Int64
}

// Views weigh one chat (the unit of db.inbox_cache_chats) per viewSeqsPerChat seqs: a
// rendered chat takes about as much memory as that many seqs.
const viewSeqsPerChat = 256

// maxPatch is the most changed chats a view is patched for; beyond it a whole read is
// about as cheap.
const maxPatch = 256

// InboxViewStats answers how many search views were patched and read whole (tests, bench).
func (db *DB) InboxViewStats() (patched, whole int64) {
	if db.views == nil {
		return 0, 0
	}
	return db.views.patched.Load(), db.views.whole.Load()
}

// searchSeqs answers the chats of the search view (q, the FTS query of f.Search, and the
// other filters of f) in inbox order: cached, patched, or read whole.
func (t *Tx) searchSeqs(orgID, q string, f app.InboxFilter) ([]int64, error) {
	cache := t.db.views
	if cache == nil || !t.readOnly {
		// A write transaction sees its own uncommitted bumps: nothing it reads is kept.
		return t.searchAll(orgID, q, f)
	}
	org, rest, err := t.inboxVersions(orgID)
	if err != nil {
		return nil, err
	}
	key := viewKey(orgID, f)
	read := func() (any, error) { return t.searchViewAt(cache, key, orgID, q, f, org, rest) }
	// Concurrent requests for pages of one view at one version see the same data: one reads.
	v, err, _ := cache.flight.Do(key+"@"+strconv.FormatInt(org, 10)+"/"+strconv.FormatInt(rest, 10), read)
	if err != nil && t.caller.Err() == nil {
		v, err = read() // the reader that went first failed on its own (its client left)
	}
	if err != nil {
		return nil, err
	}
	return v.(searchView).seqs, nil
}

// searchViewAt brings the cached view to versions (org, rest) and caches the result.
func (t *Tx) searchViewAt(cache *viewCache, key, orgID, q string, f app.InboxFilter, org, rest int64) (searchView, error) {
	cached, ok := cache.views.Get(key, 0)
	if ok {
		if v, hit := cached.at(org, rest); hit {
			return v, nil
		}
	}
	view := searchView{org: org, rest: rest}
	patched := false
	if base, can := cached.base(org, rest); ok && can {
		var err error
		if view.seqs, patched, err = t.patchView(orgID, q, f, base, org); err != nil {
			return view, err
		}
	}
	if patched {
		cache.patched.Add(1)
	} else {
		cache.whole.Add(1)
		var err error
		if view.seqs, err = t.searchAll(orgID, q, f); err != nil {
			return view, err
		}
	}
	// A reader on an older snapshot does not replace a newer view (versions only grow).
	if !ok || cached.rest != rest || cached.org < org {
		weight := len(view.seqs)/viewSeqsPerChat + 1
		if ok {
			prev := cached
			prev.prev = nil
			view.prev = &prev
			weight += len(prev.seqs) / viewSeqsPerChat
		}
		cache.views.Put(key, 0, view, weight)
	}
	view.prev = nil
	return view, nil
}

// viewKey names a view: the organization and every filter (the member only for
// ASSIGNED_TO_ME, the one filter it changes).
func viewKey(orgID string, f app.InboxFilter) string {
	if f.Filter != "ASSIGNED_TO_ME" {
		f.MemberID = ""
	}
	return fmt.Sprintf("%q %#v", orgID, f)
}

// inboxVersions answers the organization's own inbox version and the sum of the others an
// answer depends on (InboxVersion is their sum).
func (t *Tx) inboxVersions(orgID string) (org, rest int64, err error) {
	err = t.row(`SELECT COALESCE(SUM(CASE WHEN scope = ?1 THEN version END), 0), COALESCE(SUM(CASE WHEN scope <> ?1 THEN version END), 0)
		FROM inbox_versions WHERE scope IN (?1, '*', '#epoch')`, orgID).Scan(&org, &rest)
	return org, rest, mapErr(err)
}

// patchView brings old to the organization's version org from the log of changed chats;
// ok is false when the log cannot (a version without its row, or too many changes).
func (t *Tx) patchView(orgID, q string, f app.InboxFilter, old searchView, org int64) (seqs []int64, ok bool, err error) {
	var n int64
	var list string
	err = t.row(`SELECT COUNT(*), COALESCE(group_concat(DISTINCT chat_seq), '') FROM inbox_changes
		WHERE org_id = ? AND version > ? AND version <= ?`, orgID, old.org, org).Scan(&n, &list)
	if err != nil || n != org-old.org {
		return nil, false, mapErr(err)
	}
	changed := map[int64]bool{}
	if _, err := eachSeq(list, func(seq int64) bool { changed[seq] = true; return len(changed) <= maxPatch }); err != nil {
		return nil, false, err
	}
	if len(changed) > maxPatch {
		return nil, false, nil
	}
	now, err := t.matchChanged(orgID, q, f, changed)
	if err != nil {
		return nil, false, err
	}
	seqs = make([]int64, 0, len(old.seqs)+len(now))
	for _, seq := range old.seqs {
		if !changed[seq] {
			seqs = append(seqs, seq)
		}
	}
	for _, c := range now {
		at, err := t.seqsBefore(seqs, c.updatedAt, c.id, false)
		if errors.Is(err, errMoved) {
			return nil, false, nil // read whole
		}
		if err != nil {
			return nil, false, err
		}
		seqs = append(seqs[:at], append([]int64{c.seq}, seqs[at:]...)...)
	}
	return seqs, true, nil
}

// changedChat is a changed chat that belongs to the view, with its inbox order key as
// stored (updated_at scanned as any, so that it is bound back with its own type).
type changedChat struct {
	seq       int64
	updatedAt any
	id        string
}

// matchChanged answers which of the changed chats are in the view now: those that pass
// the filters' WHERE clause and match the word as searchHits finds it (a message, the meta
// text, or the chat's channel phone), the word tested only on the chats the filters keep.
func (t *Tx) matchChanged(orgID, q string, f app.InboxFilter, changed map[int64]bool) ([]changedChat, error) {
	seqs := make([]int64, 0, len(changed))
	for seq := range changed {
		seqs = append(seqs, seq)
	}
	digits := app.PhoneDigits(f.Search)
	f.Search = ""
	where, args := inboxWhere(orgID, f)
	args = append([]any{digits, orgID, likePattern(digits), jsonText(seqs)}, args...)
	// CROSS JOIN: the changed chats drive, each looked up by its seq; else SQLite may walk
	// the filters' index (every chat of a state) and test each against the list.
	rows, err := t.query(`SELECT c.seq, c.updated_at, c.id,
			? <> '' AND EXISTS (SELECT 1 FROM contact_channels ch WHERE ch.id = c.contact_channel_id
				AND ch.org_id = ? AND ch.phone_norm <> '' AND ch.phone_norm LIKE ? ESCAPE '\')
		FROM json_each(?) j CROSS JOIN chats c WHERE c.seq = j.value AND `+where, args...)
	if err != nil {
		return nil, err
	}
	type passed struct {
		changedChat
		phone bool
	}
	kept, err := collect(rows, func(r rowScanner) (c passed, err error) { return c, r.Scan(&c.seq, &c.updatedAt, &c.id, &c.phone) })
	if err != nil {
		return nil, err
	}
	var test []int64
	for _, c := range kept {
		if !c.phone {
			test = append(test, c.seq)
		}
	}
	hits, err := t.wordHits(q, test)
	if err != nil {
		return nil, err
	}
	var in []changedChat
	for _, c := range kept {
		if c.phone || hits[c.seq] {
			in = append(in, c.changedChat)
		}
	}
	return in, nil
}

// errMoved: a chat of a cached view is gone without its change in the log.
var errMoved = errors.New("sqlite: a chat of the view is gone")

// seqsBefore answers how many chats of seqs (inbox order) come before the key (updated_at,
// id), the key's own chat included when orEqual: a binary search whose comparisons are
// SQLite's own, as the inbox orders. The first chat is tried first: a changed chat is most
// often the newest.
func (t *Tx) seqsBefore(seqs []int64, updatedAt any, id string, orEqual bool) (int, error) {
	op := ">"
	if orEqual {
		op = ">="
	}
	before := func(i int) (bool, error) { // the chat at i sorts before the key
		var b sql.NullBool
		err := t.row(`SELECT (SELECT (updated_at, id) `+op+` (?, ?) FROM chats WHERE seq = ?)`, updatedAt, id, seqs[i]).Scan(&b)
		if err == nil && !b.Valid {
			err = errMoved
		}
		return b.Bool, mapErr(err)
	}
	if len(seqs) == 0 {
		return 0, nil
	}
	if first, err := before(0); err != nil || !first {
		return 0, err
	}
	lo, hi := 1, len(seqs)
	for lo < hi {
		mid := (lo + hi) / 2
		b, err := before(mid)
		if err != nil {
			return 0, err
		}
		if b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}
