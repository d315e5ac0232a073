package app

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"log/slog"
	"time"
)

// Store runs work in a transaction. Write transactions are serialized on one connection, so
// a service can read, decide and write (and emit events) without races; Read runs on a
// snapshot from the reader pool.
type Store interface {
	Read(ctx context.Context, fn func(Tx) error) error
	Write(ctx context.Context, fn func(Tx) error) error
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
}

// Service holds the business rules of every area. Handlers call it; it calls the Store.
type Service struct {
	Store Store
	Clock Clock
	Log   *slog.Logger
	// Webhooks is the delivery policy; Resolver checks webhook hosts (nil: the system's);
	// Sender makes delivery requests (set by the wiring, see app/webhook).
	Webhooks WebhookPolicy
	Resolver Resolver
	Sender   WebhookSender
	// Recorder counts what operators graph (app/metrics.go); nil: nothing.
	Recorder Recorder
	// PublicURL is where people reach the API (file and unsubscribe links).
	PublicURL string
	// DNS verifies domains (dns.resolver).
	DNS TXTResolver
	// Tokens signs unsubscribe and tracking links.
	Tokens TokenSigner
	// Mailer sends broadcast email; nil when email.smtp_url is empty.
	Mailer Mailer
	// KnowledgeMaxPages bounds a URL crawl (knowledge.max_pages).
	KnowledgeMaxPages int
	// OAuth holds the configured providers by connection type; OAuthClient talks to them.
	OAuth       map[string]OAuthProvider
	OAuthClient OAuthExchanger
	// StreamRetention is how long stream events are kept for Last-Event-ID
	// (events.stream_retention); LiveTexts answers the text of runs in flight (the hub).
	StreamRetention time.Duration
	LiveTexts       LiveTexts
	// RunPolicy configures assistant runs; Runner aborts the runs under way in this
	// process (nil: none run here).
	RunPolicy RunPolicy
	Runner    RunAborter
	// Automation configures the assistant's intro, auto resolve, follow-ups and CSAT.
	Automation AutomationPolicy
	// DKIMKeys makes new domains' DKIM keys; nil: a fresh 2048-bit RSA key each. Tests hand
	// out keys made once per test binary, as a 2048-bit key takes about a second under -race.
	DKIMKeys func() (*rsa.PrivateKey, error)
	// inbox keeps recent inbox answers (CacheInbox); nil: each one is read.
	inbox *inboxCache
}

// NewService wires a service; a nil clock means the system clock.
func NewService(store Store, clock Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = SystemClock{}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Service{Store: checkedStore{store}, Clock: clock, Log: log}
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
	// Encoded is Items as EncodeJSON writes them, when a cache already holds that; nil: encode Items.
	Encoded []byte
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
