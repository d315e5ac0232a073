package app

import (
	"context"
	"sort"
	"strings"
)

// Bulk limits of the spec.
const (
	MaxBulkChannels   = 50000
	MaxBulkSegmentIDs = 10
)

// BulkChannel is one item of a bulk import (the spec's Contact channel input).
type BulkChannel struct {
	UserID    string `json:"user_id"`
	Name      string `json:"name"`
	Email     string `json:"email"`
	Phone     string `json:"phone"`
	ContactID string `json:"contact_id"`
}

// BulkInput is the body of the bulk import and its dry run.
type BulkInput struct {
	Channels   []BulkChannel `json:"channels"`
	SegmentIDs []string      `json:"segment_ids"`
}

// BulkResult sorts the items, in request order within each class; Errors holds one reason
// per invalid item, in the same order.
type BulkResult struct {
	Created []BulkChannel `json:"created"`
	Updated []BulkChannel `json:"updated"`
	Invalid []BulkChannel `json:"invalid"`
	Errors  []string      `json:"errors,omitempty"`
	// InvalidAt is the index in the request of each invalid item, in the same order: the
	// CLI's import names the file's row of each (the API's answer keeps the spec's shape).
	InvalidAt []int `json:"-"`
}

// ChannelRef locates an existing channel.
type ChannelRef struct {
	ContactID string
	ChannelID string
}

// ChannelMatches are the existing channels found by each key.
type ChannelMatches struct {
	ByUserID map[string]ChannelRef
	ByEmail  map[string]ChannelRef // normalized email
	ByPhone  map[string]ChannelRef // normalized phone
}

// BulkTx is what the bulk import needs beyond single-contact operations.
type BulkTx interface {
	MatchChannels(orgID string, userIDs, emails, phones []string) (ChannelMatches, error)
	InsertContacts(cs []Contact) error
	InsertChannels(orgID string, chs []Channel) error
	// FillChannels sets the empty user_id, name, email and phone of each channel from its
	// items, in order (an empty field takes the first non-empty value), never overwriting,
	// and sets updated_at of every channel named.
	FillChannels(orgID string, fills []ChannelFill, now Time) error
	// TouchContacts sets updated_at of contacts a bulk import changed.
	TouchContacts(orgID string, ids []string, now Time) error
}

// ChannelFill is an updated bulk item and the existing channel it matched.
type ChannelFill struct {
	ChannelID string
	Item      BulkChannel
}

func validateBulk(in BulkInput) error {
	p := Problems{}
	switch {
	case in.Channels == nil:
		p.Add("channels", "is required")
	case len(in.Channels) > MaxBulkChannels:
		p.Add("channels", "must hold at most 50000 items")
	}
	if len(in.SegmentIDs) > MaxBulkSegmentIDs {
		p.Add("segment_ids", "must hold at most 10 items")
	}
	return p.Err()
}

// BulkDryRun classifies without writing.
func (s *Service) BulkDryRun(ctx context.Context, orgID string, in BulkInput) (res BulkResult, err error) {
	if err := validateBulk(in); err != nil {
		return res, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if err := checkSegments(tx, orgID, in.SegmentIDs, "segment_ids"); err != nil {
			return err
		}
		plan, err := classify(tx, orgID, in.Channels)
		if err == nil {
			res = plan.result()
		}
		return err
	})
	return res, err
}

// BulkImport classifies with the same rules and applies the result in one transaction:
// created items become contacts with a custom channel; updated items fill the empty fields
// of the channel they matched (or add a custom channel to the contact named by contact_id);
// every created or updated contact joins segment_ids.
func (s *Service) BulkImport(ctx context.Context, orgID string, in BulkInput) (res BulkResult, err error) {
	if err := validateBulk(in); err != nil {
		return res, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := checkSegments(tx, orgID, in.SegmentIDs, "segment_ids"); err != nil {
			return err
		}
		plan, err := classify(tx, orgID, in.Channels)
		if err != nil {
			return err
		}
		if err := s.applyBulk(tx, orgID, plan, in.SegmentIDs); err != nil {
			return err
		}
		res = plan.result()
		return nil
	})
	return res, err
}

func (s *Service) applyBulk(tx Tx, orgID string, plan *bulkPlan, segmentIDs []string) error {
	now := s.now()
	members := make([]string, 0, plan.created+len(plan.refs))
	var fills []ChannelFill
	var added []Channel // custom channels of contacts named by contact_id alone
	touched := make([]string, 0, len(plan.refs))
	for i, ref := range plan.refs {
		it := plan.items[plan.updated[i]]
		if ref.ChannelID == "" {
			added = append(added, bulkChannel(NewID("ch"), ref.ContactID, it, now))
		} else {
			fills = append(fills, ChannelFill{ChannelID: ref.ChannelID, Item: it})
		}
		members = append(members, ref.ContactID)
		touched = append(touched, ref.ContactID)
	}
	if err := tx.FillChannels(orgID, fills, now); err != nil {
		return err
	}
	if err := tx.TouchContacts(orgID, touched, now); err != nil {
		return err
	}
	contactIDs := sortedIDs("ct", plan.created)
	if err := s.insertCreated(tx, orgID, plan, contactIDs, now); err != nil {
		return err
	}
	if err := tx.InsertChannels(orgID, added); err != nil {
		return err
	}
	members = append(members, contactIDs...)
	sort.Strings(members) // in index order, like the ids above
	for _, seg := range segmentIDs {
		if err := tx.AddToSegment(orgID, seg, members); err != nil {
			return err
		}
	}
	return nil
}

// bulkChunk is how many created items become rows at a time: the rows of a whole import
// (two structs of a dozen fields per item) were the largest part of its memory.
const bulkChunk = 2500

// insertCreated inserts a contact with one custom channel for each created item, bulkChunk
// items at a time, the contacts taking contactIDs in order.
func (s *Service) insertCreated(tx Tx, orgID string, plan *bulkPlan, contactIDs []string, now Time) error {
	channelIDs := sortedIDs("ch", plan.created)
	contacts := make([]Contact, 0, min(bulkChunk, plan.created))
	channels := make([]Channel, 0, cap(contacts))
	flush := func() error {
		if err := tx.InsertContacts(contacts); err != nil {
			return err
		}
		err := tx.InsertChannels(orgID, channels)
		contacts, channels = contacts[:0], channels[:0]
		return err
	}
	n := 0
	for i, c := range plan.class {
		if c != bulkCreated {
			continue
		}
		it := plan.items[i]
		contacts = append(contacts, Contact{ID: contactIDs[n], OrgID: orgID, Name: bulkName(it), CreatedAt: now, UpdatedAt: now})
		channels = append(channels, bulkChannel(channelIDs[n], contactIDs[n], it, now))
		if n++; len(contacts) == bulkChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func bulkName(it BulkChannel) string {
	for _, v := range []string{it.Name, it.Email, it.Phone, it.UserID} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// sortedIDs makes n new ids in ascending order. Each id is as random as any other; handing
// them out in order makes a bulk import walk the id indexes (and the contact and
// segment-member indexes keyed by contact id) once, page after page, instead of jumping all
// over them, which is most of its cost once the organization holds many contacts. It also lists the contacts of
// one import (same created_at, then id) in request order.
func sortedIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = NewID(prefix)
	}
	sort.Strings(ids)
	return ids
}

func bulkChannel(id, contactID string, it BulkChannel, now Time) Channel {
	return Channel{ID: id, ContactID: contactID, ChannelProfile: ChannelProfile{Type: IntegrationCustom, UserID: it.UserID,
		Name: it.Name, Email: strings.TrimSpace(it.Email), Phone: strings.TrimSpace(it.Phone)},
		CreatedAt: now, UpdatedAt: now} // no PlatformData: stored as {}
}
