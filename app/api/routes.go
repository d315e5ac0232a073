package api

import (
	"net/http"
	"strconv"

	"wsapi/app"
)

// route is one line of the API: method, path, the permission it needs, the handler.
// Paths use {name} parameters; {org} is resolved against the key's organization tree.
type route struct {
	method string
	path   string
	perm   app.Permission
	public bool // no credential
	// body: the handler reads a request body (up to http.max_body_bytes). POST, PATCH and
	// PUT routes do unless marked bodiless; a bodiless route's body is never read, not even
	// to hash an Idempotency-Key (idempotency.go).
	body bool
	// limit bounds the body below http.max_body_bytes (0: that limit): plain objects
	// (a member, a key, a webhook, a contact) never need megabytes.
	limit int64
	// secret, on a route whose answer shows a secret once (a key's token, a webhook's signing
	// secret), tells whether a stored answer's secret is still the current one: an
	// Idempotency-Key replay is refused once it is not (idempotency.go).
	secret secretCheck
	handle func(*Request) error
}

func r(method, path string, perm app.Permission, h func(*Request) error) *route {
	return &route{method: method, path: path, perm: perm, body: takesBody(method), handle: h}
}

func public(method, path string, h func(*Request) error) *route {
	return &route{method: method, path: path, public: true, body: takesBody(method), handle: h}
}

// bodiless marks a POST that takes no body (an action on the object of its path).
func bodiless(rt *route) *route {
	rt.body = false
	return rt
}

// objectBodyBytes bounds the body of a route that takes one plain object: 1 MiB is far more
// than any such object, and a client that sends 16 MiB to it gets 413 before anything is read.
const objectBodyBytes = 1 << 20

// object bounds a route's body to objectBodyBytes.
func object(rt *route) *route {
	rt.limit = objectBodyBytes
	return rt
}

// bounded bounds a route's body to n bytes.
func bounded(rt *route, n int64) *route {
	rt.limit = n
	return rt
}

// showsSecret marks a route whose answer holds a secret shown once; current tells whether
// the secret of a stored answer still is the object's.
func showsSecret(rt *route, current secretCheck) *route {
	rt.secret = current
	return rt
}

func takesBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut
}

const (
	get, post, patch, put, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete
)

// routes is the whole API on one screen.
func (s *Server) routes() []*route {
	rd, wr := app.Read, app.Write
	return []*route{
		public(get, "/healthz", s.healthz),
		public(http.MethodHead, "/healthz", s.healthz), // load balancers probe with HEAD
		public(get, "/readyz", s.readyz),
		public(http.MethodHead, "/readyz", s.readyz),
		public(get, "/openapi.json", s.openapi),
		public(get, "/metadata", s.metadata),
		public(get, "/domains/{hostname}", s.orgByDomain),
		public(get, "/u/{token}", s.unsubscribe),
		public(post, "/u/{token}", s.unsubscribe),
		public(get, "/t/o/{token}", s.trackOpen),
		public(get, "/t/c/{token}", s.trackClick),

		// The web widget (widget.go): its loader, page and assets, and the visitor API, which
		// authenticates by the widget session's token instead of a key.
		public(get, "/widget.js", s.widgetLoader),
		public(get, "/widget-assets/{file}", s.widgetAsset),
		public(get, "/widget/{asi}", s.widgetPage),
		public(post, "/widget/{asi}/api/session", s.visitorStart),
		public(get, "/widget/{asi}/api/session", s.visitorSession),
		public(get, "/widget/{asi}/api/messages", s.visitorMessages),
		public(post, "/widget/{asi}/api/messages", s.visitorSend),
		public(post, "/widget/{asi}/api/files", s.visitorFile),
		public(get, "/widget/{asi}/api/files/{file_id}", s.visitorFileRead),
		public(get, "/widget/{asi}/api/stream", s.visitorStream),
		// Messaging-app providers' updates (hooks.go): checked by the connector, queued, 200.
		bounded(public(post, "/hooks/{type}/{asi}", s.hook), hookBodyBytes),
		public(get, "/hooks/{type}/{asi}", s.hookChallenge), // Meta's hub.challenge (hookchallenge.go)

		r(get, "/orgs/{org}", rd("org"), s.getOrg),
		object(r(patch, "/orgs/{org}", wr("org"), s.patchOrg)),
		r(get, "/orgs/{org}/sub-orgs", rd("org"), listed(s.svc.ListSubOrgs)),
		r(get, "/orgs/{org}/usage", rd("org"), s.usage),
		object(r(post, "/orgs/{org}/sub-orgs", wr("org"), s.createSubOrg)),

		r(get, "/orgs/{org}/members", rd("members"), listed(s.svc.ListMembers)),
		object(r(post, "/orgs/{org}/members", wr("members"), createdBy(s.svc.CreateMember))),
		r(get, "/orgs/{org}/members/{id}", rd("members"), byID(s.svc.GetMember)),
		object(r(patch, "/orgs/{org}/members/{id}", wr("members"), updatedBy(s.svc.UpdateMember))),
		r(del, "/orgs/{org}/members/{id}", wr("members"), deleted(s.svc.DeleteMember)),

		r(get, "/orgs/{org}/roles", rd("members"), listed(s.svc.ListRoles)),
		object(r(post, "/orgs/{org}/roles", wr("members"), createdBy(s.svc.CreateRole))),
		r(get, "/orgs/{org}/roles/{id}", rd("members"), byID(s.svc.GetRole)),
		object(r(patch, "/orgs/{org}/roles/{id}", wr("members"), updatedBy(s.svc.UpdateRole))),
		r(del, "/orgs/{org}/roles/{id}", wr("members"), deleted(s.svc.DeleteRole)),

		r(get, "/orgs/{org}/keys", rd("keys"), listed(s.svc.ListKeys)),
		showsSecret(object(r(post, "/orgs/{org}/keys", wr("keys"), createdBy(s.svc.CreateKey))), s.keyTokenCurrent),
		showsSecret(bodiless(r(post, "/orgs/{org}/keys/{id}/rotate", wr("keys"), s.rotateKey)), s.keyTokenCurrent),
		r(del, "/orgs/{org}/keys/{id}", wr("keys"), s.deleteKey),

		r(get, "/orgs/{org}/webhooks", rd("webhooks"), listed(s.svc.ListWebhooks)),
		showsSecret(object(r(post, "/orgs/{org}/webhooks", wr("webhooks"), created(s.svc.CreateWebhook))), s.webhookSecretCurrent),
		r(get, "/orgs/{org}/webhooks/events", rd("webhooks"), s.listEventTypes),
		r(get, "/orgs/{org}/webhooks/{id}", rd("webhooks"), byID(s.svc.GetWebhook)),
		object(r(patch, "/orgs/{org}/webhooks/{id}", wr("webhooks"), updated(s.svc.UpdateWebhook))),
		r(del, "/orgs/{org}/webhooks/{id}", wr("webhooks"), deleted(s.svc.DeleteWebhook)),
		bodiless(r(post, "/orgs/{org}/webhooks/{id}/test", wr("webhooks"), byID(s.svc.TestWebhook))),
		showsSecret(bodiless(r(post, "/orgs/{org}/webhooks/{id}/rotate", wr("webhooks"), byID(s.svc.RotateWebhookSecret))), s.webhookSecretCurrent),
		r(get, "/orgs/{org}/webhooks/{id}/deliveries", rd("webhooks"), s.listDeliveries),
		bodiless(r(post, "/orgs/{org}/webhooks/{id}/deliveries/{delivery_id}/replay", wr("webhooks"), s.replayDelivery)),

		r(get, "/orgs/{org}/contacts", rd("contacts"), s.listContacts),
		object(r(post, "/orgs/{org}/contacts", wr("contacts"), created(s.svc.CreateContact))),
		r(post, "/orgs/{org}/contacts/merge", wr("contacts"), s.mergeContacts),
		r(post, "/orgs/{org}/contacts/merge/dry", rd("contacts"), s.mergeContactsDry),
		r(post, "/orgs/{org}/contacts/bulk", wr("contacts"), s.bulkContacts),
		r(post, "/orgs/{org}/contacts/bulk/dry", rd("contacts"), s.bulkContactsDry),
		r(get, "/orgs/{org}/contacts/{id}", rd("contacts"), stampedByID(s.kept, s.svc.ContactStamp, s.svc.GetContact)),
		object(r(patch, "/orgs/{org}/contacts/{id}", wr("contacts"), updated(s.svc.UpdateContact))),
		r(del, "/orgs/{org}/contacts/{id}", wr("contacts"), deleted(s.svc.DeleteContact)),
		object(r(post, "/orgs/{org}/contacts/{id}/channels", wr("contacts"), s.addChannel)),
		r(get, "/orgs/{org}/contacts/{id}/notes", rd("contacts"), s.listNotes),
		object(r(post, "/orgs/{org}/contacts/{id}/notes", wr("contacts"), s.createNote)),
		r(del, "/orgs/{org}/contacts/{id}/notes/{note_id}", wr("contacts"), s.deleteNote),
		r(get, "/orgs/{org}/contacts/{id}/memories", rd("contacts"), s.listMemories),
		object(r(post, "/orgs/{org}/contacts/{id}/memories", wr("contacts"), s.createMemory)),
		r(del, "/orgs/{org}/contacts/{id}/memories/{memory_id}", wr("contacts"), s.deleteMemory),

		r(get, "/orgs/{org}/segments", rd("contacts"), listed(s.svc.ListSegments)),
		object(r(post, "/orgs/{org}/segments", wr("contacts"), created(s.svc.CreateSegment))),
		r(get, "/orgs/{org}/segments/{id}", rd("contacts"), byID(s.svc.GetSegment)),
		object(r(patch, "/orgs/{org}/segments/{id}", wr("contacts"), updated(s.svc.UpdateSegment))),
		r(del, "/orgs/{org}/segments/{id}", wr("contacts"), deleted(s.svc.DeleteSegment)),
		r(post, "/orgs/{org}/segments/{id}/contacts", wr("contacts"), s.addSegmentContacts),
		r(del, "/orgs/{org}/segments/{id}/contacts/{contact_id}", wr("contacts"), s.removeSegmentContact),

		r(get, "/orgs/{org}/assistants", rd("assistants"), s.listAssistants),
		r(post, "/orgs/{org}/assistants", wr("assistants"), created(s.svc.CreateAssistant)),
		r(get, "/orgs/{org}/assistants/{id}", rd("assistants"), byID(s.svc.GetAssistant)),
		r(patch, "/orgs/{org}/assistants/{id}", wr("assistants"), updated(s.svc.UpdateAssistant)),
		r(del, "/orgs/{org}/assistants/{id}", wr("assistants"), deleted(s.svc.DeleteAssistant)),
		r(get, "/orgs/{org}/assistants/{id}/integrations", rd("assistants"), s.listDeployments),
		showsSecret(r(post, "/orgs/{org}/assistants/{id}/integrations", wr("assistants"), s.createDeployment), s.widgetKeyCurrent),
		r(get, "/orgs/{org}/assistants/{id}/integrations/{integration_id}", rd("assistants"), s.getDeployment),
		r(patch, "/orgs/{org}/assistants/{id}/integrations/{integration_id}", wr("assistants"), s.updateDeployment),
		r(del, "/orgs/{org}/assistants/{id}/integrations/{integration_id}", wr("assistants"), s.deleteDeployment),
		showsSecret(bodiless(r(post, "/orgs/{org}/assistants/{id}/integrations/{integration_id}/rotate", wr("assistants"), s.rotateDeployment)), s.widgetKeyCurrent),
		r(get, "/orgs/{org}/assistants/{id}/knowledge/contents", rd("knowledge"), s.listKnowledge),
		r(post, "/orgs/{org}/assistants/{id}/knowledge/contents", wr("knowledge"), s.createKnowledge),
		r(get, "/orgs/{org}/assistants/{id}/knowledge/contents/{content_id}", rd("knowledge"), s.getKnowledge),
		r(del, "/orgs/{org}/assistants/{id}/knowledge/contents/{content_id}", wr("knowledge"), s.deleteKnowledge),
		bodiless(r(post, "/orgs/{org}/assistants/{id}/knowledge/contents/{content_id}/retry", wr("knowledge"), s.retryKnowledge)),
		r(get, "/orgs/{org}/assistants/{id}/knowledge/search", rd("knowledge"), s.searchKnowledge),

		r(get, "/orgs/{org}/connections", rd("connections"), s.listConnections),
		r(post, "/orgs/{org}/connections", wr("connections"), created(s.conns.Create)),
		r(get, "/orgs/{org}/connections/{id}", rd("connections"), byID(s.conns.Get)),
		r(del, "/orgs/{org}/connections/{id}", wr("connections"), deleted(s.conns.Delete)),
		r(post, "/orgs/{org}/connections/oauth/authorize", wr("connections"), s.authorizeOAuth),
		r(post, "/orgs/{org}/connections/oauth/validate", wr("connections"), s.validateOAuth),
		r(post, "/orgs/{org}/connections/actions/fields", rd("connections"), s.actionFields),

		r(get, "/orgs/{org}/inbox", rd("inbox"), s.inbox),
		r(post, "/orgs/{org}/chats", wr("inbox"), createdBy(s.svc.CreateChat)),
		r(get, "/orgs/{org}/chats/{id}", rd("inbox"), byID(s.svc.GetChat)),
		object(r(patch, "/orgs/{org}/chats/{id}", wr("inbox"), updated(s.svc.UpdateChat))),
		r(del, "/orgs/{org}/chats/{id}", wr("inbox"), deleted(s.svc.DeleteChat)),
		bodiless(r(post, "/orgs/{org}/chats/{id}/read", wr("inbox"), byID(s.svc.MarkChatRead))),
		r(get, "/orgs/{org}/chats/{id}/messages", rd("inbox"), s.listMessages),
		r(post, "/orgs/{org}/chats/{id}/messages", wr("inbox"), s.createMessage),
		r(patch, "/orgs/{org}/chats/{id}/messages/{message_id}", wr("inbox"), s.patchMessage),
		r(post, "/orgs/{org}/chats/{id}/events", wr("inbox"), updatedBy(s.svc.ChatEvent)),
		bodiless(r(post, "/orgs/{org}/chats/{id}/cancel", wr("inbox"), s.cancelRun)),
		object(r(put, "/orgs/{org}/chats/{id}/messages/{message_id}/reaction", wr("inbox"), s.setReaction)),
		r(del, "/orgs/{org}/chats/{id}/messages/{message_id}/reaction", wr("inbox"), s.deleteReaction),
		r(get, "/orgs/{org}/chats/{id}/stream", rd("inbox"), s.chatStream),
		r(get, "/orgs/{org}/events/stream", "", s.orgStream), // any key of the org; events filtered by its read areas
		r(get, "/orgs/{org}/chats/{id}/files", rd("inbox"), s.listFiles),
		r(get, "/orgs/{org}/chats/{id}/files/{file_id}", rd("inbox"), s.getFile),

		r(get, "/orgs/{org}/domains", rd("emails"), listed(s.svc.ListDomains)),
		object(r(post, "/orgs/{org}/domains", wr("emails"), created(s.svc.CreateDomain))),
		r(get, "/orgs/{org}/domains/{id}", rd("emails"), byID(s.svc.GetDomain)),
		r(del, "/orgs/{org}/domains/{id}", wr("emails"), deleted(s.svc.DeleteDomain)),
		bodiless(r(post, "/orgs/{org}/domains/{id}/verify", wr("emails"), byID(s.svc.VerifyDomain))),
		r(get, "/orgs/{org}/emails/identities", rd("emails"), listed(s.svc.ListIdentities)),
		object(r(post, "/orgs/{org}/emails/identities", wr("emails"), created(s.svc.CreateIdentity))),
		r(get, "/orgs/{org}/emails/identities/{id}", rd("emails"), byID(s.svc.GetIdentity)),
		object(r(patch, "/orgs/{org}/emails/identities/{id}", wr("emails"), updated(s.svc.UpdateIdentity))),
		r(del, "/orgs/{org}/emails/identities/{id}", wr("emails"), deleted(s.svc.DeleteIdentity)),
		bodiless(r(post, "/orgs/{org}/emails/identities/{id}/verify", wr("emails"), byID(s.svc.VerifyIdentity))),

		r(get, "/orgs/{org}/broadcasts", rd("broadcasts"), listed(s.svc.ListBroadcasts)),
		r(post, "/orgs/{org}/broadcasts", wr("broadcasts"), created(s.svc.CreateBroadcast)),
		r(get, "/orgs/{org}/broadcasts/recipients", rd("broadcasts"), s.listRecipients),
		r(post, "/orgs/{org}/broadcasts/recipients/{id}/events", wr("broadcasts"), s.recipientEvent),
		r(get, "/orgs/{org}/broadcasts/{id}", rd("broadcasts"), byID(s.svc.GetBroadcast)),
		r(get, "/orgs/{org}/suppressions", rd("broadcasts"), s.listSuppressions),
		object(r(post, "/orgs/{org}/suppressions", wr("broadcasts"), created(s.svc.AddSuppression))),
		r(del, "/orgs/{org}/suppressions/{id}", wr("broadcasts"), deleted(s.svc.DeleteSuppression)),
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
