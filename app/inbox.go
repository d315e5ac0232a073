package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// InboxFilter is every query parameter of GET /inbox. Empty strings and "ALL" filter nothing.
type InboxFilter struct {
	Search                 string
	AssistantID            string
	AssistantIntegrationID string
	ConversationID         string
	ContactID              string
	SegmentID              string
	IntegrationID          string
	Status                 string
	State                  string
	AIStatus               string
	Filter                 string
	CSATMax                int
	// MemberID is the caller's member, for ASSIGNED_TO_ME.
	MemberID string
}

// InboxCursor is the (updated_at, id) of the last chat of a page.
type InboxCursor struct {
	UpdatedAt string `json:"u"`
	ID        string `json:"id"`
}

// InboxTx lists chats for the inbox.
type InboxTx interface {
	// ListInbox answers up to limit chats, updated_at desc then id desc, after the cursor if
	// any, else after offset rows; and the number matching in all, which the caller gives
	// when it knows it (total >= 0) to spare counting.
	ListInbox(orgID string, f InboxFilter, after *InboxCursor, offset, limit, total int) ([]Chat, int, error)
	// InboxVersion changes whenever something an inbox answer of the organization is made of
	// changes, and only grows: equal versions in two snapshots mean equal answers.
	InboxVersion(orgID string) (int64, error)
}

// Inbox filter values.
var (
	InboxFilters = []string{"ALL", "UNREAD", "UNRESOLVED", "RESOLVED", "ASSIGNED_TO_ME", "UNASSIGNED"}
	AIStatuses   = []string{"ALL", "ENABLED", "DISABLED"}
)

// ParseInboxFilter validates the query values of GET /inbox.
func ParseInboxFilter(get func(string) string, memberID string) (InboxFilter, error) {
	f := InboxFilter{Search: get("search"), AssistantID: get("assistant_id"), AssistantIntegrationID: get("assistant_integration_id"),
		ConversationID: get("conversation_id"), ContactID: get("contact_id"), SegmentID: get("segment_id"),
		IntegrationID: get("integration_id"), Status: get("status"), State: get("state"), AIStatus: get("ai_status"),
		Filter: get("filter"), MemberID: memberID}
	p := Problems{}
	validateSearch(p, f.Search, false)
	if f.IntegrationID != "" && !ValidIntegration(f.IntegrationID) {
		p.Add("integration_id", "must be one of "+strings.Join(Integrations, ", "))
	}
	checks := []struct {
		field, value string
		allowed      []string
	}{
		{"status", f.Status, append([]string{"ALL"}, RunStatuses...)},
		{"state", f.State, append([]string{"ALL"}, ChatStates...)},
		{"ai_status", f.AIStatus, AIStatuses},
		{"filter", f.Filter, InboxFilters},
	}
	for _, c := range checks {
		if c.value != "" && !slices.Contains(c.allowed, c.value) {
			p.Add(c.field, "must be one of "+strings.Join(c.allowed, ", "))
		}
	}
	if v := get("csat_max"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 5 {
			p.Add("csat_max", "must be 0, 1, 2, 3, 4 or 5")
		}
		f.CSATMax = n
	}
	return f, p.Err()
}

// Inbox lists chats newest activity first, by page or by cursor. With the inbox cache on,
// the answer's Items are shared with other requests: read only.
func (s *Service) Inbox(ctx context.Context, orgID string, f InboxFilter, next string, pg Page) (l List[Chat], err error) {
	scope := listScope("inbox", orgID, f)
	after, err := parseCursor[InboxCursor](next, scope)
	if err != nil {
		return l, err
	}
	offset := windowOffset(after, pg)
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		read := func(total int) (List[Chat], error) {
			return inboxPage(tx, orgID, f, scope, after, offset, pg.Take, total)
		}
		if s.inbox == nil {
			l, err = read(-1)
		} else {
			l, err = s.inbox.cachedInbox(ctx, tx, orgID, f, fmt.Sprint(next, "|", offset, "|", pg.Take), read)
		}
		return err
	})
	return l, err
}

// inboxPage reads take chats and the cursor of the next page if there is one; total >= 0 is
// the list's count when already known.
func inboxPage(tx Tx, orgID string, f InboxFilter, scope string, after *InboxCursor, offset, take, total int) (List[Chat], error) {
	var l List[Chat]
	var err error
	l.Items, l.Total, err = tx.ListInbox(orgID, f, after, offset, take+1, total)
	if err == nil {
		trimPage(&l, take, scope, func(c Chat) InboxCursor { return InboxCursor{UpdatedAt: c.UpdatedAt.String(), ID: c.ID} })
	}
	return l, err
}
