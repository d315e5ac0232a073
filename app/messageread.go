package app

import "context"

// GetMessage reads one message of a chat (the web app redraws a message the stream says
// changed).
func (s *Service) GetMessage(ctx context.Context, orgID, chatID, id string) (Message, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Message, error) { return tx.GetMessage(orgID, chatID, id) })
}
