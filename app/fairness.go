package app

import (
	"context"

	"wsapi/app/fair"
)

// ClaimRoom is what one claim round may take, and Due one piece of work it could claim: the
// rule is app/fair's, shared by every worker and the store's claims.
type (
	ClaimRoom = fair.Room
	Due       = fair.Due
)

// OrgShare is the cap on one organization's pieces in flight (fair.OrgShare).
var OrgShare = fair.OrgShare

// anyDue runs a cheap look for due work on a reader when room asks for it (idle loops), so
// they do not take the single writer connection on every tick; busy loops skip it.
func (s *Service) anyDue(ctx context.Context, room ClaimRoom, look func(Tx) (bool, error)) (due bool, err error) {
	if !room.LookFirst {
		return true, nil
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		due, err = look(tx)
		return err
	})
	return due, err
}
