package app

import (
	"crypto/rsa"
	"log/slog"
	"time"
)

// Service holds the business rules of every area. Handlers call it; it calls the Store. Its
// collaborators and policies are given once, to NewService, and stay as they are: the
// background workers read them concurrently.
type Service struct {
	// d are the collaborators, unexported: code outside app goes through the Service's
	// methods, never around them (the accessors below answer the few it needs).
	d Deps
	// inbox keeps recent inbox answers (Deps.InboxCacheChats); nil: each one is read.
	inbox *inboxCache
	// auth keeps recent authentications (CacheAuth); nil: each one is read.
	auth *authCache
}

// Deps are what a Service works with; only Store is required.
type Deps struct {
	Store Store
	Clock Clock        // nil: the system clock
	Log   *slog.Logger // nil: slog's default
	// Webhooks is the delivery policy; Resolver checks webhook hosts (nil: the system's);
	// Sender makes delivery requests (app/webhook).
	Webhooks WebhookPolicy
	Resolver Resolver
	Sender   WebhookSender
	// Recorder counts what operators graph (app/metrics.go); nil: nothing.
	Recorder Recorder
	// Links builds the public URLs of mailed links and chat files (app/api's PublicLinks).
	Links Links
	// DNS verifies domains (dns.resolver).
	DNS TXTResolver
	// Tokens signs unsubscribe and tracking links.
	Tokens TokenSigner
	// Mailer sends broadcast email; nil when email.smtp_url is empty.
	Mailer Mailer
	// KnowledgeMaxPages bounds a URL crawl (knowledge.max_pages).
	KnowledgeMaxPages int
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
	// Connectors check the set-up of assistant integrations, by integration type (app/channel);
	// a type without one is saved FAILED, "not available on this server yet".
	Connectors map[string]Connector
	// InboxCacheChats bounds the inbox answers kept in memory, in chats (0: none).
	InboxCacheChats int
	// DKIMKeys makes new domains' DKIM keys; nil: a fresh 2048-bit RSA key each. Tests hand
	// out keys made once per test binary, as a 2048-bit key takes about a second under -race.
	DKIMKeys func() (*rsa.PrivateKey, error)
}

// NewService makes the service with its collaborators.
func NewService(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = SystemClock{}
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	d.Store = checkedStore{d.Store}
	s := &Service{d: d}
	if d.InboxCacheChats > 0 {
		s.inbox = newInboxCache(d.InboxCacheChats)
	}
	s.CacheAuth(true)
	return s
}

// Store is the store the rules run on, for the rule packages beside app (app/connection,
// app/delivery): a context carrying input problems runs no transaction on it.
func (s *Service) Store() Store { return s.d.Store }

// Clock is the service's time source, for the handlers and workers that must agree with it.
func (s *Service) Clock() Clock { return s.d.Clock }

// LiveTexts answers the text of runs in flight (nil: none are streamed in this process).
func (s *Service) LiveTexts() LiveTexts { return s.d.LiveTexts }

// KnowledgeMaxPages is the most pages a URL crawl may take (knowledge.max_pages).
func (s *Service) KnowledgeMaxPages() int { return s.d.KnowledgeMaxPages }

// Tokens signs and checks the tokens of links (unsubscribe, tracking, reply addresses).
func (s *Service) Tokens() TokenSigner { return s.d.Tokens }

// Links builds the public URLs of mailed links and chat files.
func (s *Service) Links() Links { return s.d.Links }

// WebhookPolicy is the webhook delivery policy (its lease, its attempts).
func (s *Service) WebhookPolicy() WebhookPolicy { return s.d.Webhooks }
