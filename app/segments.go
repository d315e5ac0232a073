package app

import (
	"context"
	"slices"
	"strings"
)

// SegmentColors is the fixed palette of segment colors.
var SegmentColors = []string{"red", "orange", "amber", "yellow", "lime", "green", "emerald", "teal",
	"cyan", "sky", "blue", "indigo", "violet", "purple", "fuchsia", "pink", "rose", "gray"}

// DefaultSegmentColor is used when a segment is created without one.
const DefaultSegmentColor = "gray"

// Segment is a named group of contacts.
type Segment struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Color         string `json:"color"`
	ContactsCount int    `json:"contacts_count"`
	CreatedAt     Time   `json:"created_at"`
	UpdatedAt     Time   `json:"updated_at"`
	OrgID         string `json:"-"`
}

// SegmentTx is the segments part of a transaction.
type SegmentTx interface {
	CreateSegment(s Segment) error
	GetSegment(orgID, id string) (Segment, error)
	UpdateSegment(s Segment) error
	DeleteSegment(orgID, id string) error
	ListSegments(orgID string, p Page) ([]Segment, int, error)
	// AddToSegment adds contacts (ignoring those already in it).
	AddToSegment(orgID, segmentID string, contactIDs []string) error
	RemoveFromSegment(orgID, segmentID, contactID string) error
	// MissingSegments answers which of ids are not segments of the organization.
	MissingSegments(orgID string, ids []string) ([]string, error)
	// MissingContacts answers which of ids are not contacts of the organization.
	MissingContacts(orgID string, ids []string) ([]string, error)
}

// SegmentInput creates or (nil fields left alone) changes a segment.
type SegmentInput struct {
	Name  *string `json:"name"`
	Color *string `json:"color"`
}

func validColor(c string) bool {
	return slices.Contains(SegmentColors, c)
}

func validateSegment(in SegmentInput, creating bool) error {
	p := Problems{}
	validateNameField(p, "name", in.Name, creating, 255)
	if in.Color != nil && !validColor(*in.Color) {
		p.Add("color", "must be one of "+strings.Join(SegmentColors, ", "))
	}
	return p.Err()
}

// checkSegments answers 400 naming field when a segment id is not the organization's.
func checkSegments(tx Tx, orgID string, ids []string, field string) error {
	if len(ids) == 0 {
		return nil
	}
	missing, err := tx.MissingSegments(orgID, ids)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return Invalid(field, "unknown segment "+strings.Join(missing, ", "))
	}
	return nil
}

// CreateSegment adds a segment.
func (s *Service) CreateSegment(ctx context.Context, orgID string, in SegmentInput) (Segment, error) {
	if err := validateSegment(in, true); err != nil {
		return Segment{}, err
	}
	now := s.now()
	seg := Segment{ID: NewID("seg"), OrgID: orgID, Name: strings.TrimSpace(*in.Name), Color: DefaultSegmentColor,
		CreatedAt: now, UpdatedAt: now}
	if in.Color != nil {
		seg.Color = *in.Color
	}
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateSegment(seg) })
	return seg, err
}

// GetSegment reads a segment with its live contact count.
func (s *Service) GetSegment(ctx context.Context, orgID, id string) (Segment, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Segment, error) { return tx.GetSegment(orgID, id) })
}

// ListSegments lists segments by name.
func (s *Service) ListSegments(ctx context.Context, orgID string, pg Page) (List[Segment], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Segment, int, error) { return tx.ListSegments(orgID, pg) })
}

// UpdateSegment renames or recolors a segment.
func (s *Service) UpdateSegment(ctx context.Context, orgID, id string, in SegmentInput) (seg Segment, err error) {
	if err := validateSegment(in, false); err != nil {
		return Segment{}, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if seg, err = tx.GetSegment(orgID, id); err != nil {
			return err
		}
		if in.Name != nil {
			seg.Name = strings.TrimSpace(*in.Name)
		}
		if in.Color != nil {
			seg.Color = *in.Color
		}
		seg.UpdatedAt = s.now()
		return tx.UpdateSegment(seg)
	})
	return seg, err
}

// DeleteSegment removes a segment and its memberships (not the contacts).
func (s *Service) DeleteSegment(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteSegment(orgID, id) })
}

// AddSegmentContacts adds contacts to a segment; an unknown contact id is 404.
func (s *Service) AddSegmentContacts(ctx context.Context, orgID, id string, contactIDs []string) (seg Segment, err error) {
	if len(contactIDs) == 0 {
		return seg, Invalid("contact_ids", "must name at least one contact")
	}
	if len(contactIDs) > 10000 {
		return seg, Invalid("contact_ids", "must name at most 10000 contacts")
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetSegment(orgID, id); err != nil {
			return err
		}
		missing, err := tx.MissingContacts(orgID, contactIDs)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return NotFound("contact " + missing[0])
		}
		if err := tx.AddToSegment(orgID, id, contactIDs); err != nil {
			return err
		}
		seg, err = tx.GetSegment(orgID, id)
		return err
	})
	return seg, err
}

// RemoveSegmentContact takes a contact out of a segment.
func (s *Service) RemoveSegmentContact(ctx context.Context, orgID, id, contactID string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetSegment(orgID, id); err != nil {
			return err
		}
		return tx.RemoveFromSegment(orgID, id, contactID)
	})
}
