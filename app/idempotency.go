package app

import "time"

// IdempotencyTTL is how long the answer to a POST made with an Idempotency-Key is kept
// (Stripe's 24 hours); the janitor purges older ones.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyKey scopes a client's Idempotency-Key: one organization, one route pattern.
type IdempotencyKey struct {
	OrgID string
	Key   string
	Route string // "POST /orgs/{org}/contacts"
}

// StoredResponse is what is kept of the first request made with an idempotency key: the
// hash of that request, and its answer once it finished (Done false: still running).
type StoredResponse struct {
	RequestHash string
	Done        bool
	Status      int
	ContentType string
	Body        []byte
}
