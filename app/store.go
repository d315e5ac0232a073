package app

import (
	"bytes"
	"context"
	"encoding/json"
)

// Store runs work in a transaction; Read runs on a snapshot of committed data.
//
// Two contracts the domain relies on without saying so at each call (app/storetest proves
// them; docs/decisions/store-backends.md says what else a second backend needs):
//
//  1. Writes are serialized. No two Write transactions interleave: a service reads, decides
//     and writes (a unique name, the next position, a balance, a claim) inside one Write
//     with no lock of its own, and that is race-free only because nothing else writes
//     between its read and its write. A Write whose function fails leaves nothing of what it
//     wrote, and nothing of another Write's is lost with it.
//  2. Stream sequence numbers follow commit order. A stream event's seq (StreamTx) is visible
//     to readers no later than every smaller seq, so a reader that resumes "after the last
//     seq I saw" (the hub, every SSE client, Last-Event-ID) never skips an event committed
//     late with a smaller number. One writer gives it for free; a backend with concurrent
//     writers must hand seqs out at commit, or serialize the writers that stream.
type Store interface {
	Read(ctx context.Context, fn func(Tx) error) error
	Write(ctx context.Context, fn func(Tx) error) error
	// AuthVersion is KeyTx.AuthVersion on the latest committed state, without a transaction.
	AuthVersion(ctx context.Context) (int64, error)
	// OrgVersion changes whenever anything the organization's answers are made of may have
	// changed: a write made for it (WithWriteScope), a write made for no organization in
	// particular, or any commit by another process. Read without a transaction; ok is false
	// when the store cannot tell (then keep nothing by it).
	OrgVersion(orgID string) (v int64, ok bool)
}

// Tx is everything a service can do inside one transaction. Each aggregate declares its part
// next to its types; the sqlite package implements them, one file per aggregate.
type Tx interface {
	OrgTx
	MemberTx
	RoleTx
	KeyTx
	EventTx
	WebhookTx
	DeliveryTx
	ContactTx
	SegmentTx
	NoteTx
	MergeTx
	BulkTx
	AssistantTx
	ChatTx
	MessageTx
	InboxTx
	FileTx
	DomainTx
	IdentityTx
	BroadcastTx
	RecipientTx
	SuppressionTx
	KnowledgeTx
	ConnectionTx
	StreamTx
	RunTx
	SignInTx
	DeploymentTx
	DeliveryQueueTx
	WidgetTx
}

func (s *Service) now() Time { return At(s.d.Clock.Now()) }

// Page is the page/take pair of a list request.
type Page struct {
	Page int
	Take int
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (p.Page - 1) * p.Take }

// MaxTake is the largest page size the API accepts.
const MaxTake = 100

// List is one page of results and the number of rows matching in all.
type List[T any] struct {
	Items []T
	Total int
	// Next is the cursor of the following page on cursor-paginated lists, "" on the last.
	Next string
	// Stamp names the cached data a page was read from (the inbox's, app/inboxcache.go):
	// answers with the same non-zero stamp hold the same items, so the HTTP layer may keep
	// their encoding. Zero: not from a cache.
	Stamp Stamp
}

// Stamp is a cache key and the version of the data it was read at.
type Stamp struct {
	Key     string
	Version int64
}

// EncodeJSON is the JSON form of the API's bodies (HTML characters not escaped, a newline
// at the end).
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// Sealer encrypts secrets at rest (see app/secret).
type Sealer interface {
	Seal(plaintext string) (string, error)
	Open(sealed string) (string, error)
}
