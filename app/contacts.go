package app

import (
	"context"
	"net/url"
	"strconv"
	"strings"
)

// ChannelProfile is what a channel tells about its contact: the fields a request sets and
// every channel shape (full, nested in a chat member, input) shows.
type ChannelProfile struct {
	Type     string `json:"type"`
	UserID   string `json:"user_id"`
	Avatar   string `json:"avatar"`
	Name     string `json:"name"`
	Username string `json:"username"`
	Email    string `json:"email"`
	Phone    string `json:"phone"`
	Country  string `json:"country"`
	Agent    string `json:"agent"`
	IP       string `json:"ip"`
	Language string `json:"language"`
}

// Channel is one way to reach a contact through an integration.
type Channel struct {
	ID string `json:"id"`
	ChannelProfile
	PlatformData map[string]any `json:"platform_data"`
	CreatedAt    Time           `json:"created_at"`
	UpdatedAt    Time           `json:"updated_at"`
	Link         string         `json:"link"`
	ContactID    string         `json:"-"`
}

// Contact is a person the organization converses with.
type Contact struct {
	ID                  string    `json:"id"`
	Name                string    `json:"name"`
	Blocked             bool      `json:"blocked"`
	Unsubscribed        bool      `json:"unsubscribed"`
	IsAdmin             bool      `json:"is_admin"`
	Channels            []Channel `json:"channels"`
	Segments            []Segment `json:"segments"`
	CreatedAt           Time      `json:"created_at"`
	UpdatedAt           Time      `json:"updated_at"`
	BlockedAt           Time      `json:"blocked_at"`
	UnsubscribedAt      Time      `json:"unsubscribed_at"`
	UnsubscribeReason   *string   `json:"unsubscribe_reason"`
	UnsubscribeFeedback *string   `json:"unsubscribe_feedback"`
	OrgID               string    `json:"-"`
	// encoded is the contact in EncodeJSON's form, made for its contact.created event; set
	// only on CreateContact's answer, which nothing changes after (EncodedJSON).
	encoded []byte
}

// EncodedJSON is the contact already in the API's JSON form, when the service made it for
// a stream event of the same contact (CreateContact), else nil: the answer then need not be
// encoded again (about 4% of a POST's CPU).
func (c Contact) EncodedJSON() []byte { return c.encoded }

// ContactFilter narrows the contacts list.
type ContactFilter struct {
	Search       string
	SegmentID    string
	Blocked      *bool
	Unsubscribed *bool
}

// ContactTx is the contacts part of a transaction.
type ContactTx interface {
	CreateContact(c Contact) error
	CreateChannel(orgID string, ch Channel) error
	GetChannel(orgID, id string) (Channel, error)
	GetContact(orgID, id string) (Contact, error)
	ListContacts(orgID string, f ContactFilter, p Page) ([]Contact, int, error)
	UpdateContact(c Contact) error
	DeleteContact(orgID, id string) error
}

// ChannelInput is a channel in a request.
type ChannelInput struct {
	ChannelProfile
	PlatformData map[string]any `json:"platform_data"`
}

// ContactInput creates a contact.
type ContactInput struct {
	Name       string         `json:"name"`
	Channels   []ChannelInput `json:"channels"`
	SegmentIDs []string       `json:"segment_ids"`
}

// ContactPatch changes a contact. Turning blocked or unsubscribed on emits its event.
type ContactPatch struct {
	Name                *string `json:"name"`
	Blocked             *bool   `json:"blocked"`
	Unsubscribed        *bool   `json:"unsubscribed"`
	UnsubscribeReason   *string `json:"unsubscribe_reason"`
	UnsubscribeFeedback *string `json:"unsubscribe_feedback"`
}

// validateChannel checks a channel; prefix names where it sits in the body ("" at the top).
func validateChannel(p Problems, prefix string, in ChannelInput) {
	field := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "." + name
	}
	if !ValidIntegration(in.Type) {
		p.Add(field("type"), "must be one of "+strings.Join(Integrations, ", "))
	}
	if in.Email != "" && !validEmail(in.Email) {
		p.Add(field("email"), "must be an email address")
	}
	if in.Phone != "" && NormalizePhone(in.Phone) == "" {
		p.Add(field("phone"), "must be 5 to 20 digits (spaces, +, (, ) and - are allowed)")
	}
	for name, v := range map[string]string{"user_id": in.UserID, "name": in.Name, "username": in.Username,
		"country": in.Country, "agent": in.Agent, "ip": in.IP, "language": in.Language, "avatar": in.Avatar} {
		if CharCount(v) > 1000 {
			p.Add(field(name), "must be at most 1000 characters")
		}
	}
}

func newChannel(orgID, contactID string, in ChannelInput, now Time) Channel {
	ch := Channel{ID: NewID("ch"), ContactID: contactID, ChannelProfile: in.ChannelProfile,
		PlatformData: in.PlatformData, CreatedAt: now, UpdatedAt: now}
	if ch.PlatformData == nil {
		ch.PlatformData = map[string]any{}
	}
	return ch
}

// Link is the address of the channel in its integration, where one exists.
func (ch ChannelProfile) Link() string {
	switch ch.Type {
	case "email", "gmail", "outlook":
		if ch.Email != "" {
			return "mailto:" + ch.Email
		}
	case "whatsapp":
		if p := NormalizePhone(ch.Phone); p != "" {
			return "https://wa.me/" + p
		}
	case "sms":
		if p := NormalizePhone(ch.Phone); p != "" {
			return "sms:+" + p
		}
	case "telegram":
		if ch.Username != "" {
			return "https://t.me/" + url.PathEscape(ch.Username)
		}
	case "instagram":
		if ch.Username != "" {
			return "https://instagram.com/" + url.PathEscape(ch.Username)
		}
	}
	return ""
}

// CreateContact makes a contact with its channels and segment memberships.
func (s *Service) CreateContact(ctx context.Context, orgID string, in ContactInput) (c Contact, err error) {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	for i, ch := range in.Channels {
		validateChannel(p, "channels["+itoa(i)+"]", ch)
	}
	if err := p.Err(); err != nil {
		return Contact{}, err
	}
	now := s.now()
	c = Contact{ID: NewID("ct"), OrgID: orgID, Name: strings.TrimSpace(in.Name), CreatedAt: now, UpdatedAt: now}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := checkSegments(tx, orgID, in.SegmentIDs, "segment_ids"); err != nil {
			return err
		}
		if err := tx.CreateContact(c); err != nil {
			return err
		}
		c.Channels, c.Segments = []Channel{}, []Segment{}
		for _, chIn := range in.Channels {
			ch := newChannel(orgID, c.ID, chIn, now)
			if err := tx.CreateChannel(orgID, ch); err != nil {
				return err
			}
			ch.Link = ch.ChannelProfile.Link()
			c.Channels = append(c.Channels, ch)
		}
		for _, seg := range in.SegmentIDs {
			if err := tx.AddToSegment(orgID, seg, []string{c.ID}); err != nil {
				return err
			}
		}
		// Without segments the contact is what was just inserted; reading it back was a sixth
		// of POST create's CPU. Segments are read for their names, colors and counts.
		if len(in.SegmentIDs) > 0 {
			if c, err = tx.GetContact(orgID, c.ID); err != nil {
				return err
			}
		}
		raw, err := s.emitStreamJSON(tx, orgID, "", StreamContactCreated, c)
		c.encoded = raw
		return err
	})
	return c, err
}

// AddChannel adds one channel to a contact.
func (s *Service) AddChannel(ctx context.Context, orgID, contactID string, in ChannelInput) (ch Channel, err error) {
	p := Problems{}
	validateChannel(p, "", in)
	if err := p.Err(); err != nil {
		return Channel{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		c, err := tx.GetContact(orgID, contactID)
		if err != nil {
			return err
		}
		ch = newChannel(orgID, contactID, in, s.now())
		ch.Link = ch.ChannelProfile.Link()
		c.UpdatedAt = ch.CreatedAt
		if err := tx.UpdateContact(c); err != nil {
			return err
		}
		if err := tx.CreateChannel(orgID, ch); err != nil {
			return err
		}
		return s.contactUpdated(tx, orgID, contactID)
	})
	return ch, err
}

// GetContact reads a contact with its channels and segments.
func (s *Service) GetContact(ctx context.Context, orgID, id string) (Contact, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Contact, error) { return tx.GetContact(orgID, id) })
}

// ContactStamp names GetContact's answer as the data stands now, before it is read: while
// nothing the organization's answers are made of has been committed since (Store.OrgVersion),
// the same stamp means the same answer, so one kept under it may be served again
// (app/api/kept.go). ok is false when the store cannot tell.
func (s *Service) ContactStamp(orgID, id string) (Stamp, bool) {
	v, ok := s.d.Store.OrgVersion(orgID)
	return Stamp{Key: "contact\x00" + orgID + "\x00" + id, Version: v}, ok
}

// ContactsStamp names ListContacts' answer for a filter and page as the data stands now,
// like ContactStamp.
func (s *Service) ContactsStamp(orgID string, f ContactFilter, pg Page) (Stamp, bool) {
	v, ok := s.d.Store.OrgVersion(orgID)
	return Stamp{Key: contactsKey(orgID, f, pg), Version: v}, ok
}

// contactsKey names one contact list question. It lists the filter's fields by hand (a few
// string writes, where encoding the struct by reflection cost more than the rest of a kept
// answer); TestCacheKeysNameEveryField fails when a field of ContactFilter is left out.
func contactsKey(orgID string, f ContactFilter, pg Page) string {
	flag := func(b *bool) string {
		if b == nil {
			return ""
		}
		return strconv.FormatBool(*b)
	}
	return strings.Join([]string{"contacts", orgID, strconv.Quote(f.Search), strconv.Quote(f.SegmentID),
		flag(f.Blocked), flag(f.Unsubscribed), strconv.Itoa(pg.Page), strconv.Itoa(pg.Take)}, "\x00")
}

// ListContacts lists contacts, oldest first.
func (s *Service) ListContacts(ctx context.Context, orgID string, f ContactFilter, pg Page) (l List[Contact], err error) {
	p := Problems{}
	if validateSearch(p, f.Search, false); len(p) > 0 {
		return l, p.Err()
	}
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Contact, int, error) { return tx.ListContacts(orgID, f, pg) })
}

// DeleteContact removes a contact with its channels, notes, memories and memberships.
func (s *Service) DeleteContact(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if err := tx.DeleteContact(orgID, id); err != nil {
			return err
		}
		return s.EmitStream(tx, orgID, "", StreamContactDeleted, map[string]string{"id": id})
	})
}

// contactUpdated emits contact.updated with the contact as it now reads.
func (s *Service) contactUpdated(tx Tx, orgID, id string) error {
	c, err := tx.GetContact(orgID, id)
	if err != nil {
		return err
	}
	return s.EmitStream(tx, orgID, "", StreamContactUpdated, c)
}

// UpdateContact applies a PATCH. blocked and unsubscribed set or clear their timestamps; a
// false -> true change emits contact.blocked / contact.unsubscribed in the same transaction.
func (s *Service) UpdateContact(ctx context.Context, orgID, id string, in ContactPatch) (c Contact, err error) {
	p := Problems{}
	if in.Name != nil {
		validateName(p, "name", *in.Name, 255)
	}
	if in.UnsubscribeReason != nil && CharCount(*in.UnsubscribeReason) > 255 {
		p.Add("unsubscribe_reason", "must be at most 255 characters")
	}
	if in.UnsubscribeFeedback != nil && CharCount(*in.UnsubscribeFeedback) > 1000 {
		p.Add("unsubscribe_feedback", "must be at most 1000 characters")
	}
	if err := p.Err(); err != nil {
		return Contact{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if c, err = tx.GetContact(orgID, id); err != nil {
			return err
		}
		if in.Name != nil {
			c.Name = strings.TrimSpace(*in.Name)
		}
		c, err = s.applyOptOuts(tx, c, in)
		return err
	})
	return c, err
}
