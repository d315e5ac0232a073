package web

import (
	"net/http"

	"wsapi/app"
)

// A parent organization's member may act on its sub-organizations, as the API lets a
// parent's key call /orgs/{sub}/...: the same role, the same permissions, and the same
// check (app.Service.ResolveOrg: the organization must be the member's own or below it).
// The choice is a cookie naming the organization; it grants nothing by itself, since every
// request checks it again, and a stale or foreign value falls back to the member's own
// organization (docs/webapp.md "Sub-organizations").

func (s *Server) orgCookie() string { return s.cookie + "-org" }

// actAs points the request at the organization the member switched to, when it is still
// theirs to act on.
func (s *Server) actAs(rq *Request) {
	c, err := rq.R.Cookie(s.orgCookie())
	if err != nil || c.Value == "" || c.Value == rq.Session.OrgID {
		return
	}
	if org, err := s.svc.ResolveOrg(rq.Ctx(), rq.Session.Principal, c.Value); err == nil {
		rq.Session.OrgID = org
	}
}

// actingName is the name of the sub-organization the member switched to ("" at home), for
// the banner every page shows then.
func (s *Server) actingName(rq *Request) string {
	if rq.Org() == rq.Session.Principal.Member.OrgID {
		return ""
	}
	o, err := s.svc.GetOrg(rq.Ctx(), rq.Org())
	if err != nil {
		return rq.Org()
	}
	return o.Name
}

type orgRow struct {
	app.Org
	Depth  int
	Acting bool
}

type orgsView struct {
	Own  app.Org
	Subs []orgRow
	// Acting is the organization the pages act on now.
	Acting string
}

// maxSwitchOrgs bounds the switcher's list (a parent with thousands of tenants uses the API).
const maxSwitchOrgs = 200

// orgs is GET /app/orgs: the member's organization and those below it, depth first.
func (s *Server) orgs(rq *Request) error {
	own, err := s.svc.GetOrg(rq.Ctx(), rq.Session.Principal.Member.OrgID)
	if err != nil {
		return err
	}
	v := orgsView{Own: own, Acting: rq.Org()}
	var walk func(parent string, depth int) error
	walk = func(parent string, depth int) error {
		l, err := s.svc.ListSubOrgs(rq.Ctx(), parent, app.Page{Page: 1, Take: app.MaxTake})
		if err != nil {
			return err
		}
		for _, o := range l.Items {
			if len(v.Subs) >= maxSwitchOrgs {
				return nil
			}
			v.Subs = append(v.Subs, orgRow{Org: o, Depth: depth, Acting: o.ID == v.Acting})
			if err := walk(o.ID, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(own.ID, 0); err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "orgs", s.page(rq, "Organizations", v))
}

// switchOrg is POST /app/orgs/switch: org is the organization to act on ("" or the
// member's own: back home). Another tree's organization is a 404, as in the API.
func (s *Server) switchOrg(rq *Request) error {
	f := newForm(rq)
	org := f.Get("org")
	own := rq.Session.Principal.Member.OrgID
	if org != "" && org != own {
		if _, err := s.svc.ResolveOrg(rq.Ctx(), rq.Session.Principal, org); err != nil {
			return err
		}
	}
	c := &http.Cookie{Name: s.orgCookie(), Value: org, Path: "/", HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode}
	if org == "" || org == own {
		c.Value, c.MaxAge = "", -1
	}
	http.SetCookie(rq.W, c)
	return s.redirect(rq, "/app/orgs")
}
