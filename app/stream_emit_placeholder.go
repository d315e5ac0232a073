package app

// EmitStream records a persisted chat stream event inside tx. This placeholder does
// nothing: the stream hub's branch brings the real one, and the coordinator deletes this
// file at merge.
func (s *Service) EmitStream(tx Tx, orgID, chatID, typ string, data any) error { return nil }
