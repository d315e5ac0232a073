package app

import (
	"context"
	"errors"
)

// MergeInput names the contact that disappears (source) and the one that stays (target).
type MergeInput struct {
	SourceContactID string `json:"source_contact_id"`
	TargetContactID string `json:"target_contact_id"`
}

// MergeCounts is how many of the source's children move to the target.
type MergeCounts struct {
	Channels int `json:"channels"`
	Notes    int `json:"notes"`
	Memories int `json:"memories"`
	Segments int `json:"segments"`
	Chats    int `json:"chats"`
}

// MergePreview is the answer of a dry merge: the contact the merge would produce and what
// would move.
type MergePreview struct {
	Contact Contact     `json:"contact"`
	Moves   MergeCounts `json:"moves"`
}

// MergeTx moves a contact's children to another.
type MergeTx interface {
	// MoveContactChildren re-parents channels, notes, memories, segment memberships (those
	// the target lacks) and chats from one contact to another and counts them.
	MoveContactChildren(orgID, from, to string) (MergeCounts, error)
}

// errDryRun rolls back a dry run's transaction.
var errDryRun = errors.New("dry run")

// MergeContacts merges source into target in one transaction. Opt-outs survive: the target
// ends blocked if either was and unsubscribed if either was, keeping the earliest timestamp
// and its reason; a flag that turns on for the target emits its event.
func (s *Service) MergeContacts(ctx context.Context, orgID string, in MergeInput) (Contact, error) {
	p, err := s.merge(ctx, orgID, in, false)
	return p.Contact, err
}

// PreviewMerge runs the very same merge and rolls it back, writing nothing.
func (s *Service) PreviewMerge(ctx context.Context, orgID string, in MergeInput) (MergePreview, error) {
	return s.merge(ctx, orgID, in, true)
}

func (s *Service) merge(ctx context.Context, orgID string, in MergeInput, dry bool) (out MergePreview, err error) {
	p := Problems{}
	if in.SourceContactID == "" {
		p.Add("source_contact_id", "is required")
	}
	if in.TargetContactID == "" {
		p.Add("target_contact_id", "is required")
	}
	if in.SourceContactID != "" && in.SourceContactID == in.TargetContactID {
		p.Add("target_contact_id", "must differ from source_contact_id")
	}
	if err := p.Err(); err != nil {
		return out, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if out, err = s.mergeIn(tx, orgID, in); err != nil {
			return err
		}
		if dry {
			return errDryRun
		}
		return nil
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	return out, err
}

func (s *Service) mergeIn(tx Tx, orgID string, in MergeInput) (MergePreview, error) {
	src, err := tx.GetContact(orgID, in.SourceContactID)
	if err != nil {
		return MergePreview{}, err
	}
	dst, err := tx.GetContact(orgID, in.TargetContactID)
	if err != nil {
		return MergePreview{}, err
	}
	moves, err := tx.MoveContactChildren(orgID, src.ID, dst.ID)
	if err != nil {
		return MergePreview{}, err
	}
	blockedNow, unsubNow := mergeOptOuts(&dst, src)
	dst.UpdatedAt = s.now()
	if err := tx.UpdateContact(dst); err != nil {
		return MergePreview{}, err
	}
	if err := tx.DeleteContact(orgID, src.ID); err != nil {
		return MergePreview{}, err
	}
	if dst, err = tx.GetContact(orgID, dst.ID); err != nil {
		return MergePreview{}, err
	}
	if err := s.emitOptOuts(tx, dst, blockedNow, unsubNow); err != nil {
		return MergePreview{}, err
	}
	if err := s.EmitStream(tx, orgID, "", StreamContactDeleted, map[string]string{"id": src.ID}); err != nil {
		return MergePreview{}, err
	}
	return MergePreview{Contact: dst, Moves: moves}, s.EmitStream(tx, orgID, "", StreamContactUpdated, dst)
}

// mergeOptOuts carries the source's opt-outs onto the target and tells which turned on.
func mergeOptOuts(dst *Contact, src Contact) (blockedNow, unsubNow bool) {
	if src.Blocked && (!dst.Blocked || src.BlockedAt.Before(dst.BlockedAt.Time)) {
		blockedNow = !dst.Blocked
		dst.Blocked, dst.BlockedAt = true, src.BlockedAt
	}
	if src.Unsubscribed && (!dst.Unsubscribed || src.UnsubscribedAt.Before(dst.UnsubscribedAt.Time)) {
		unsubNow = !dst.Unsubscribed
		dst.Unsubscribed, dst.UnsubscribedAt = true, src.UnsubscribedAt
		dst.UnsubscribeReason, dst.UnsubscribeFeedback = src.UnsubscribeReason, src.UnsubscribeFeedback
	}
	return blockedNow, unsubNow
}
