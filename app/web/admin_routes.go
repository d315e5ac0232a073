package web

import (
	"net/http"

	"wsapi/app"
)

// adminRoutes are the pages that set up the workspace (docs/webapp.md "Settings"):
// members and roles, API keys, webhooks, contacts, broadcasts, usage and the organization
// switcher. Each names the API's own permission of its area.
func (s *Server) adminRoutes() []route {
	rd, wr := app.Read, app.Write
	get, post := http.MethodGet, http.MethodPost
	return []route{
		{method: post, path: "/app/members/:id", perm: wr("members"), handle: s.updateMember},
		{method: post, path: "/app/members/:id/delete", perm: wr("members"), handle: s.deleteMember},
		{method: post, path: "/app/roles", perm: wr("members"), handle: s.createRole},
		{method: post, path: "/app/roles/:id", perm: wr("members"), handle: s.updateRole},
		{method: post, path: "/app/roles/:id/delete", perm: wr("members"), handle: s.deleteRole},

		{method: get, path: "/app/keys", perm: rd("keys"), handle: s.keys},
		{method: post, path: "/app/keys", perm: wr("keys"), handle: s.createKey},
		{method: post, path: "/app/keys/:id/rotate", perm: wr("keys"), handle: s.rotateKey},
		{method: post, path: "/app/keys/:id/delete", perm: wr("keys"), handle: s.deleteKey},

		{method: get, path: "/app/webhooks", perm: rd("webhooks"), handle: s.webhooks},
		{method: post, path: "/app/webhooks", perm: wr("webhooks"), handle: s.createWebhook},
		{method: get, path: "/app/webhooks/:id", perm: rd("webhooks"), handle: s.webhook},
		{method: post, path: "/app/webhooks/:id", perm: wr("webhooks"), handle: s.updateWebhook},
		{method: post, path: "/app/webhooks/:id/delete", perm: wr("webhooks"), handle: s.deleteWebhook},
		{method: post, path: "/app/webhooks/:id/test", perm: wr("webhooks"), handle: s.testWebhook},
		{method: post, path: "/app/webhooks/:id/rotate", perm: wr("webhooks"), handle: s.rotateWebhook},
		{method: post, path: "/app/webhooks/:id/deliveries/:did/replay", perm: wr("webhooks"), handle: s.replayDelivery},

		{method: get, path: "/app/contacts", perm: rd("contacts"), handle: s.contacts},
		{method: post, path: "/app/contacts/import/dry", perm: rd("contacts"), handle: s.importContacts(true)},
		{method: post, path: "/app/contacts/import", perm: wr("contacts"), handle: s.importContacts(false)},
		{method: post, path: "/app/contacts", perm: wr("contacts"), handle: s.createContact},
		{method: get, path: "/app/contact/:id", perm: rd("contacts"), handle: s.contact},
		{method: post, path: "/app/contact/:id", perm: wr("contacts"), handle: s.updateContact},
		{method: post, path: "/app/contact/:id/channels", perm: wr("contacts"), handle: s.addContactChannel},
		{method: post, path: "/app/contact/:id/delete", perm: wr("contacts"), handle: s.deleteContact},
		{method: post, path: "/app/segments", perm: wr("contacts"), handle: s.createSegment},
		{method: post, path: "/app/segments/:id/delete", perm: wr("contacts"), handle: s.deleteSegment},
		{method: post, path: "/app/segment-members", perm: wr("contacts"), handle: s.addToSegment},
		{method: post, path: "/app/segment-members/remove", perm: wr("contacts"), handle: s.removeFromSegment},

		{method: get, path: "/app/broadcasts", perm: rd("broadcasts"), handle: s.broadcasts},
		{method: post, path: "/app/broadcasts", perm: wr("broadcasts"), handle: s.createBroadcast},
		{method: get, path: "/app/broadcasts/:id", perm: rd("broadcasts"), handle: s.broadcast},

		{method: get, path: "/app/usage", perm: rd("org"), handle: s.usage},

		{method: get, path: "/app/orgs", perm: rd("org"), handle: s.orgs},
		{method: post, path: "/app/orgs/switch", handle: s.switchOrg},
	}
}
