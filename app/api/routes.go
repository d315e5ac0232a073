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
	handle func(*Request) error
}

func r(method, path string, perm app.Permission, h func(*Request) error) *route {
	return &route{method: method, path: path, perm: perm, handle: h}
}

func public(method, path string, h func(*Request) error) *route {
	return &route{method: method, path: path, public: true, handle: h}
}

const (
	get, post, patch, put, del = http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete
)

// routes is the whole API on one screen.
func (s *Server) routes() []*route {
	rd, wr := app.Read, app.Write
	return []*route{
		public(get, "/healthz", s.healthz),
		public(get, "/openapi.json", s.openapi),

		r(get, "/orgs/{org}", rd("org"), s.getOrg),
		r(patch, "/orgs/{org}", wr("org"), s.patchOrg),
		r(get, "/orgs/{org}/sub-orgs", rd("org"), s.listSubOrgs),
		r(post, "/orgs/{org}/sub-orgs", wr("org"), s.createSubOrg),

		r(get, "/orgs/{org}/members", rd("members"), s.listMembers),
		r(post, "/orgs/{org}/members", wr("members"), s.createMember),
		r(get, "/orgs/{org}/members/{id}", rd("members"), s.getMember),
		r(patch, "/orgs/{org}/members/{id}", wr("members"), s.patchMember),
		r(del, "/orgs/{org}/members/{id}", wr("members"), s.deleteMember),

		r(get, "/orgs/{org}/roles", rd("members"), s.listRoles),
		r(post, "/orgs/{org}/roles", wr("members"), s.createRole),
		r(get, "/orgs/{org}/roles/{id}", rd("members"), s.getRole),
		r(patch, "/orgs/{org}/roles/{id}", wr("members"), s.patchRole),
		r(del, "/orgs/{org}/roles/{id}", wr("members"), s.deleteRole),

		r(get, "/orgs/{org}/keys", rd("keys"), s.listKeys),
		r(post, "/orgs/{org}/keys", wr("keys"), s.createKey),
		r(post, "/orgs/{org}/keys/{id}/rotate", wr("keys"), s.rotateKey),
		r(del, "/orgs/{org}/keys/{id}", wr("keys"), s.deleteKey),

		r(get, "/orgs/{org}/webhooks", rd("webhooks"), s.listWebhooks),
		r(post, "/orgs/{org}/webhooks", wr("webhooks"), s.createWebhook),
		r(get, "/orgs/{org}/webhooks/events", rd("webhooks"), s.listEventTypes),
		r(get, "/orgs/{org}/webhooks/{id}", rd("webhooks"), s.getWebhook),
		r(patch, "/orgs/{org}/webhooks/{id}", wr("webhooks"), s.patchWebhook),
		r(del, "/orgs/{org}/webhooks/{id}", wr("webhooks"), s.deleteWebhook),
		r(post, "/orgs/{org}/webhooks/{id}/test", wr("webhooks"), s.testWebhook),
		r(post, "/orgs/{org}/webhooks/{id}/rotate", wr("webhooks"), s.rotateWebhook),
		r(get, "/orgs/{org}/webhooks/{id}/deliveries", rd("webhooks"), s.listDeliveries),
		r(post, "/orgs/{org}/webhooks/{id}/deliveries/{delivery_id}/replay", wr("webhooks"), s.replayDelivery),
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
