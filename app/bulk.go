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

// bulkPlan is the classification with, for each updated item, the contact it lands on.
type bulkPlan struct {
	BulkResult
	updatedRefs []ChannelRef // ChannelID "" when matched by contact_id alone
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

// classify applies the rules of DESIGN.md, item by item, in order.
func classify(tx Tx, orgID string, items []BulkChannel) (bulkPlan, error) {
	var userIDs, emails, phones, contactIDs []string
	for _, it := range items {
		if it.UserID != "" {
			userIDs = append(userIDs, it.UserID)
		}
		if e := NormalizeEmail(it.Email); e != "" {
			emails = append(emails, e)
		}
		if ph := NormalizePhone(it.Phone); ph != "" {
			phones = append(phones, ph)
		}
		if it.ContactID != "" {
			contactIDs = append(contactIDs, it.ContactID)
		}
	}
	matches, err := tx.MatchChannels(orgID, userIDs, emails, phones)
	if err != nil {
		return bulkPlan{}, err
	}
	missing, err := tx.MissingContacts(orgID, contactIDs)
	if err != nil {
		return bulkPlan{}, err
	}
	unknown := map[string]bool{}
	for _, id := range missing {
		unknown[id] = true
	}
	c := classifier{matches: matches, unknown: unknown, seen: map[string]bool{}}
	plan := bulkPlan{BulkResult: BulkResult{Created: []BulkChannel{}, Updated: []BulkChannel{}, Invalid: []BulkChannel{}}}
	for _, it := range items {
		c.add(&plan, it)
	}
	return plan, nil
}

type classifier struct {
	matches ChannelMatches
	unknown map[string]bool
	seen    map[string]bool // "u:", "e:", "p:" keys of earlier items
}

func (c *classifier) add(plan *bulkPlan, it BulkChannel) {
	email, phone := NormalizeEmail(it.Email), NormalizePhone(it.Phone)
	keys := []string{}
	if it.UserID != "" {
		keys = append(keys, "u:"+it.UserID)
	}
	if email != "" {
		keys = append(keys, "e:"+email)
	}
	if phone != "" {
		keys = append(keys, "p:"+phone)
	}
	why := c.invalid(it, keys)
	for _, k := range keys {
		c.seen[k] = true
	}
	if why != "" {
		plan.Invalid = append(plan.Invalid, it)
		plan.Errors = append(plan.Errors, why)
		return
	}
	if ref, ok := c.match(it, email, phone); ok {
		plan.Updated = append(plan.Updated, it)
		plan.updatedRefs = append(plan.updatedRefs, ref)
		return
	}
	plan.Created = append(plan.Created, it)
}

func (c *classifier) invalid(it BulkChannel, keys []string) string {
	switch {
	case it.UserID == "" && strings.TrimSpace(it.Email) == "" && strings.TrimSpace(it.Phone) == "":
		return "needs one of user_id, email, phone"
	case it.Email != "" && !validEmail(strings.TrimSpace(it.Email)):
		return "email is not an address"
	case it.Phone != "" && NormalizePhone(it.Phone) == "":
		return "phone must be 5 to 20 digits"
	case it.ContactID != "" && c.unknown[it.ContactID]:
		return "contact_id names no contact of this organization"
	}
	for field, v := range map[string]string{"name": it.Name, "user_id": it.UserID, "email": it.Email, "phone": it.Phone} {
		if CharCount(v) > 255 {
			return field + " is longer than 255 characters"
		}
	}
	for _, k := range keys {
		if c.seen[k] {
			return "repeats the " + map[byte]string{'u': "user_id", 'e': "email", 'p': "phone"}[k[0]] + " of an earlier item"
		}
	}
	return ""
}

func (c *classifier) match(it BulkChannel, email, phone string) (ChannelRef, bool) {
	if ref, ok := c.matches.ByUserID[it.UserID]; ok && it.UserID != "" && (it.ContactID == "" || ref.ContactID == it.ContactID) {
		return ref, true
	}
	if ref, ok := c.matches.ByEmail[email]; ok && email != "" && (it.ContactID == "" || ref.ContactID == it.ContactID) {
		return ref, true
	}
	if ref, ok := c.matches.ByPhone[phone]; ok && phone != "" && (it.ContactID == "" || ref.ContactID == it.ContactID) {
		return ref, true
	}
	if it.ContactID != "" {
		return ChannelRef{ContactID: it.ContactID}, true
	}
	return ChannelRef{}, false
}

// BulkDryRun classifies without writing.
func (s *Service) BulkDryRun(ctx context.Context, orgID string, in BulkInput) (res BulkResult, err error) {
	if err := validateBulk(in); err != nil {
		return res, err
	}
	err = s.Store.Read(ctx, func(tx Tx) error {
		if err := checkSegments(tx, orgID, in.SegmentIDs, "segment_ids"); err != nil {
			return err
		}
		plan, err := classify(tx, orgID, in.Channels)
		res = plan.BulkResult
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
	err = s.Store.Write(ctx, func(tx Tx) error {
		if err := checkSegments(tx, orgID, in.SegmentIDs, "segment_ids"); err != nil {
			return err
		}
		plan, err := classify(tx, orgID, in.Channels)
		if err != nil {
			return err
		}
		res = plan.BulkResult
		return s.applyBulk(tx, orgID, plan, in.SegmentIDs)
	})
	return res, err
}

func (s *Service) applyBulk(tx Tx, orgID string, plan bulkPlan, segmentIDs []string) error {
	now := s.now()
	contacts := make([]Contact, 0, len(plan.Created))
	channels := make([]Channel, 0, len(plan.Created))
	members := make([]string, 0, len(plan.Created)+len(plan.updatedRefs))
	contactIDs, channelIDs := sortedIDs("ct", len(plan.Created)), sortedIDs("ch", len(plan.Created))
	for i, it := range plan.Created {
		c := Contact{ID: contactIDs[i], OrgID: orgID, Name: bulkName(it), CreatedAt: now, UpdatedAt: now}
		contacts = append(contacts, c)
		channels = append(channels, bulkChannel(channelIDs[i], c.ID, it, now))
		members = append(members, c.ID)
	}
	var fills []ChannelFill
	touched := make([]string, 0, len(plan.updatedRefs))
	for i, ref := range plan.updatedRefs {
		it := plan.Updated[i]
		if ref.ChannelID == "" {
			channels = append(channels, bulkChannel(NewID("ch"), ref.ContactID, it, now))
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
	if err := tx.InsertContacts(contacts); err != nil {
		return err
	}
	if err := tx.InsertChannels(orgID, channels); err != nil {
		return err
	}
	sort.Strings(members) // in index order, like the ids above
	for _, seg := range segmentIDs {
		if err := tx.AddToSegment(orgID, seg, members); err != nil {
			return err
		}
	}
	return nil
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
		PlatformData: map[string]any{}, CreatedAt: now, UpdatedAt: now}
}
