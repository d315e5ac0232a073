package app

import (
	"context"
	"slices"
)

// fakeTx answers the few store calls a domain rule makes, from fields a test sets; any
// other call panics (the embedded Tx is nil), so a test shows exactly what a rule reads.
type fakeTx struct {
	Tx
	due      bool // what every Any...Due look answers
	matches  ChannelMatches
	missing  []string
	delivery Delivery
	webhook  Webhook
}

func (f *fakeTx) AnyDeliveryDue(Time) (bool, error)  { return f.due, nil }
func (f *fakeTx) AnyRecipientDue(Time) (bool, error) { return f.due, nil }
func (f *fakeTx) AnyKnowledgeDue(Time) (bool, error) { return f.due, nil }
func (f *fakeTx) AnyRunDue(Time) (bool, error)       { return f.due, nil }
func (f *fakeTx) OrphanRuns(string, Time) ([]Run, error) {
	return nil, nil
}
func (f *fakeTx) ClaimDue(Time, Time, ClaimRoom) ([]Job, error) { return nil, nil }
func (f *fakeTx) ClaimRecipients(Time, Time, ClaimRoom) ([]Recipient, error) {
	return nil, nil
}
func (f *fakeTx) ClaimKnowledge(Time, Time, ClaimRoom) ([]KnowledgeContent, error) {
	return nil, nil
}
func (f *fakeTx) DueRuns(Time, ClaimRoom) ([]Run, error) { return nil, nil }
func (f *fakeTx) MatchChannels(string, []string, []string, []string) (ChannelMatches, error) {
	return f.matches, nil
}
func (f *fakeTx) MissingContacts(_ string, ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if slices.Contains(f.missing, id) {
			out = append(out, id)
		}
	}
	return out, nil
}
func (f *fakeTx) DeliveryState(string, string) (Delivery, error) { return f.delivery, nil }
func (f *fakeTx) FinishAttempt(d Delivery, _ Attempt) error      { f.delivery = d; return nil }
func (f *fakeTx) GetWebhook(string, string) (Webhook, error)     { return f.webhook, nil }
func (f *fakeTx) SetWebhookHealth(w Webhook) error               { f.webhook = w; return nil }

// fakeStore runs every transaction on one fakeTx and counts them.
type fakeStore struct {
	tx            *fakeTx
	reads, writes int
}

func (s *fakeStore) Read(_ context.Context, fn func(Tx) error) error {
	s.reads++
	return fn(s.tx)
}

func (s *fakeStore) Write(_ context.Context, fn func(Tx) error) error {
	s.writes++
	return fn(s.tx)
}

// fakeService is a service over a fakeStore on a manual clock.
func fakeService(tx *fakeTx) (*Service, *fakeStore) {
	st := &fakeStore{tx: tx}
	return NewService(st, NewManualClock(testStart), nil), st
}
