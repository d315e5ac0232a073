package sqlite

import (
	"strings"

	"wsapi/app"
)

// ftsQuery turns free text into an FTS5 query: every word (app.SearchTerms) must appear, as
// a prefix, quoted so that FTS syntax characters and operators are taken literally. Every
// MATCH of the store goes through here.
func ftsQuery(s string) string {
	var terms []string
	for _, w := range app.SearchTerms(s) {
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"*`)
	}
	return strings.Join(terms, " ")
}

// inboxWhere builds the WHERE clause of the inbox from the filters that are set, so that
// SQLite plans each combination with the indexes it needs. The search term is not one of
// them: listInboxSearch intersects its hits with this clause's chats.
func inboxWhere(orgID string, f app.InboxFilter) (string, []any) {
	conds := []string{"c.org_id = ?"}
	args := []any{orgID}
	add := func(cond string, vals ...any) {
		conds = append(conds, cond)
		args = append(args, vals...)
	}
	for col, v := range map[string]string{"c.assistant_id": f.AssistantID, "c.assistant_integration_id": f.AssistantIntegrationID,
		"c.conversation_id": f.ConversationID, "c.contact_id": f.ContactID, "c.integration_id": f.IntegrationID} {
		if v != "" {
			add(col+" = ?", v)
		}
	}
	if f.SegmentID != "" {
		add("c.contact_id IN (SELECT contact_id FROM segment_members WHERE segment_id = ?)", f.SegmentID)
	}
	if f.Status != "" && f.Status != "ALL" {
		add("c.status = ?", f.Status)
	}
	if f.State != "" && f.State != "ALL" {
		add("c.state = ?", f.State)
	}
	switch f.AIStatus {
	case "ENABLED":
		add("c.ai_enabled = 1")
	case "DISABLED":
		add("c.ai_enabled = 0")
	}
	switch f.Filter {
	case "UNREAD":
		add("c.admin_unseen_count > 0")
	case "UNRESOLVED":
		add("c.state IN ('OPEN', 'SNOOZED')")
	case "RESOLVED":
		add("c.state = 'CLOSED'")
	case "ASSIGNED_TO_ME":
		add("c.assigned_user_id = ?", f.MemberID)
	case "UNASSIGNED":
		add("c.assigned_user_id IS NULL")
	}
	if f.CSATMax > 0 {
		add("c.csat_score IS NOT NULL AND c.csat_score <= ?", f.CSATMax)
	}
	return strings.Join(conds, " AND "), args
}

// ListInbox answers a page of chats, newest activity first, and the list's count unless the
// caller knows it (total >= 0).
func (t *Tx) ListInbox(orgID string, f app.InboxFilter, after *app.InboxCursor, offset, limit, total int) ([]app.Chat, int, error) {
	if q := ftsQuery(f.Search); q != "" {
		return t.listInboxSearch(orgID, q, f, after, offset, limit, total)
	}
	where, args := inboxWhere(orgID, f)
	return t.listInbox(where, args, after, offset, limit, total)
}

// InboxVersion is the version of everything an inbox answer of the organization is made of,
// in this transaction's snapshot: the sum of its own and the global counters that the
// triggers of migration 00010 bump, over the table's random epoch.
func (t *Tx) InboxVersion(orgID string) (int64, error) {
	var v int64
	err := t.row(`SELECT COALESCE(SUM(version), 0) FROM inbox_versions WHERE scope IN (?, '*', '#epoch')`, orgID).Scan(&v)
	return v, mapErr(err)
}

// bumpInbox changes the organization's inbox version, for the one change no trigger follows:
// segment membership (migration 00010).
func (t *Tx) bumpInbox(orgID string) error {
	_, err := t.exec(`INSERT INTO inbox_versions (scope, version) VALUES (?, 1)
		ON CONFLICT (scope) DO UPDATE SET version = version + 1`, orgID)
	return err
}

// listInbox reads a page and, unless total is already known (>= 0), the list's count.
func (t *Tx) listInbox(where string, args []any, after *app.InboxCursor, offset, limit, total int) ([]app.Chat, int, error) {
	countArgs := args
	pageWhere := where
	if after != nil {
		// A row value, so that SQLite seeks to the cursor in the index instead of scanning
		// from the first chat.
		pageWhere += " AND (c.updated_at, c.id) < (?, ?)"
		args = append(args, after.UpdatedAt, after.ID)
	}
	seqs, err := queryAll(t, func(r rowScanner) (seq int64, err error) { return seq, r.Scan(&seq) },
		`SELECT c.seq FROM chats c WHERE `+pageWhere+`
		ORDER BY c.updated_at DESC, c.id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	chats := []app.Chat{}
	if len(seqs) > 0 {
		if chats, err = t.loadChatsBySeq(seqs); err != nil {
			return nil, 0, err
		}
	}
	if total >= 0 {
		return chats, total, nil
	}
	// A page that is not full is the end of the list (same snapshot): its rows and the ones
	// skipped before it are all there are, and the count query can be spared.
	if after == nil && len(chats) < limit && (len(chats) > 0 || offset == 0) {
		return chats, offset + len(chats), nil
	}
	total, err = t.count(`SELECT COUNT(*) FROM chats c WHERE `+where, countArgs...)
	return chats, total, err
}
