package app

import (
	"bytes"
	"context"
	"encoding/json"
)

// Store runs work in a transaction. Write transactions are serialized on one connection, so
// a service can read, decide and write (and emit events) without races; Read runs on a
// snapshot from the reader pool.
type Store interface {
	Read(ctx context.Context, fn func(Tx) error) error
	Write(ctx context.Context, fn func(Tx) error) error
	// AuthVersion is KeyTx.AuthVersion on the latest committed state, without a transaction.
	AuthVersion(ctx context.Context) (int64, error)
	// DataVersion changes whenever anything is committed, by any process, and is read
	// without a transaction; ok is false when the store cannot tell (then keep nothing by it).
	DataVersion() (v int64, ok bool)
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
	DeploymentTx
	DeliveryQueueTx
	WidgetTx
}

func (s *Service) now() Time { return At(s.Clock.Now()) }

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
