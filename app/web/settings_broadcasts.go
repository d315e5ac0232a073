package web

import (
	"net/http"

	"wsapi/app"
)

type broadcastsView struct {
	Broadcasts   []app.Broadcast
	Segments     []app.Segment
	Identities   []app.EmailIdentity
	Integrations []string
	CanWrite     bool
	Form         form
}

func (s *Server) broadcastsView(rq *Request) (broadcastsView, error) {
	v := broadcastsView{Integrations: app.BroadcastIntegrations, CanWrite: rq.Can(app.Write("broadcasts"))}
	l, err := s.svc.ListBroadcasts(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: 50})
	if err != nil {
		return v, err
	}
	v.Broadcasts = l.Items
	if rq.Can(app.Read("contacts")) {
		segs, err := s.svc.ListSegments(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
		if err != nil {
			return v, err
		}
		v.Segments = segs.Items
	}
	if rq.Can(app.Read("emails")) {
		ids, err := s.svc.ListIdentities(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
		if err != nil {
			return v, err
		}
		v.Identities = ids.Items
	}
	return v, nil
}

// broadcasts is GET /app/broadcasts: the broadcasts with their counts, and the composer.
func (s *Server) broadcasts(rq *Request) error {
	v, err := s.broadcastsView(rq)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "broadcasts", s.page(rq, "Broadcasts", v))
}

// createBroadcast is POST /app/broadcasts: the API's CreateBroadcast, which sends at once
// (the API has no schedule; docs/webapp.md).
func (s *Server) createBroadcast(rq *Request) error {
	f := newForm(rq)
	in := app.BroadcastInput{Name: f.Get("name"), IntegrationID: f.Get("integration_id"), IdentityID: f.Get("identity_id"),
		Subject: f.Get("subject"), Text: f.Get("text"), HTML: f.Get("html"), SegmentIDs: f.Values["segment_ids"]}
	b, err := s.svc.CreateBroadcast(rq.Ctx(), rq.Org(), in)
	if err == nil {
		return s.redirect(rq, "/app/broadcasts/"+b.ID)
	}
	status, err := f.failed(err)
	if err != nil {
		return err
	}
	v, verr := s.broadcastsView(rq)
	if verr != nil {
		return verr
	}
	v.Form = f
	return s.render(rq, status, "broadcasts", s.page(rq, "Broadcasts", v))
}

type broadcastView struct {
	Broadcast  app.Broadcast
	Recipients []app.Recipient
	Total      int
	Flags      []string
	Filter     string // the flag the list is narrowed to ("" for all)
}

// broadcast is GET /app/broadcasts/{id}: its counts and recipients with their flags
// (filtered as the API's recipients list is: ?is_failed=true...).
func (s *Server) broadcast(rq *Request) error {
	b, err := s.svc.GetBroadcast(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	q := rq.R.URL.Query()
	q.Set("broadcast_id", b.ID)
	f, err := app.ParseRecipientFilter(q.Get)
	if err != nil {
		return err
	}
	l, err := s.svc.ListRecipients(rq.Ctx(), rq.Org(), f, "", app.Page{Page: 1, Take: 100})
	if err != nil {
		return err
	}
	v := broadcastView{Broadcast: b, Recipients: l.Items, Total: l.Total, Flags: app.RecipientFlags}
	for flag, set := range f.Flags {
		if set {
			v.Filter = flag
		}
	}
	return s.render(rq, http.StatusOK, "broadcast", s.page(rq, "Broadcast "+b.Name, v))
}
