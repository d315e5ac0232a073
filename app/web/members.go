package web

import (
	"net/http"
	"strings"

	"wsapi/app"
	"wsapi/app/signin"
)

type membersView struct {
	Members  []app.Member
	Roles    []app.Role
	Areas    []string
	CanWrite bool
	Link     string // a password link made just now: shown once
	LinkFor  string
	Mailed   bool   // the link went to LinkFor by mail
	MailFail string // why mailing it failed ("": it went, or no mail was tried)
	Form     form   // the invite form shown back
	FormFor  string
	CSRF     string
}

func (s *Server) membersView(rq *Request) (membersView, error) {
	v := membersView{CanWrite: rq.Can(app.Write("members")), CSRF: rq.CSRF(), Areas: app.Areas}
	ms, err := s.svc.ListMembers(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return v, err
	}
	v.Members = ms.Items
	roles, err := s.svc.ListRoles(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return v, err
	}
	v.Roles = roles.Items
	return v, nil
}

// members is GET /app/members: who is in the organization, its roles, and (members:write)
// invites, role changes, removals and the roles' permissions.
func (s *Server) members(rq *Request) error {
	v, err := s.membersView(rq)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "members", s.page(rq, "Members", v))
}

// membersFailed shows the members page again with a form's errors (which names the form
// they belong to: "invite", "role-new", a member's or a role's id).
func (s *Server) membersFailed(rq *Request, f form, which string, err error) error {
	status, err := f.failed(err)
	if err != nil {
		return err
	}
	v, verr := s.membersView(rq)
	if verr != nil {
		return verr
	}
	v.Form, v.FormFor = f, which
	return s.render(rq, status, "members", s.page(rq, "Members", v))
}

// invite is POST /app/members: creates the member through the API's CreateMember (the
// caller may grant only what it holds) and shows its one-time set-password link once.
func (s *Server) invite(rq *Request) error {
	f := newForm(rq)
	in := app.MemberInput{Name: f.Get("name"), Email: f.Get("email"), Role: f.Get("role")}
	m, err := s.svc.CreateMember(rq.Ctx(), rq.Caller(), in)
	if err != nil {
		return s.membersFailed(rq, f, "invite", err)
	}
	token, err := s.auth.IssueLink(rq.Ctx(), rq.Org(), m.ID, signin.PurposeInvite)
	if err != nil {
		return err
	}
	return s.showLink(rq, m, token, signin.PurposeInvite)
}

// updateMember is POST /app/members/{id}: a new role, with the API's UpdateMember rules
// (grant only what the caller holds; one admin always stays).
func (s *Server) updateMember(rq *Request) error {
	f := newForm(rq)
	role := f.Get("role")
	if _, err := s.svc.UpdateMember(rq.Ctx(), rq.Caller(), rq.Params.ByName("id"), app.MemberPatch{Role: &role}); err != nil {
		return s.membersFailed(rq, f, rq.Params.ByName("id"), err)
	}
	return s.redirect(rq, "/app/members")
}

// deleteMember is POST /app/members/{id}/delete: the API's DeleteMember (its keys and
// sessions go with it).
func (s *Server) deleteMember(rq *Request) error {
	if err := s.svc.DeleteMember(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return s.deleteFailed(rq, err)
	}
	return s.redirect(rq, "/app/members")
}

// roleInput reads a role form: its name and one checkbox per permission.
func roleInput(f form) app.RoleInput {
	name := f.Get("name")
	perms := []app.Permission{}
	for _, p := range f.Values["permissions"] {
		perms = append(perms, app.Permission(p))
	}
	return app.RoleInput{Name: &name, Permissions: perms}
}

func (s *Server) createRole(rq *Request) error {
	f := newForm(rq)
	if _, err := s.svc.CreateRole(rq.Ctx(), rq.Caller(), roleInput(f)); err != nil {
		return s.membersFailed(rq, f, "role-new", err)
	}
	return s.redirect(rq, "/app/members")
}

func (s *Server) updateRole(rq *Request) error {
	f := newForm(rq)
	if _, err := s.svc.UpdateRole(rq.Ctx(), rq.Caller(), rq.Params.ByName("id"), roleInput(f)); err != nil {
		return s.membersFailed(rq, f, rq.Params.ByName("id"), err)
	}
	return s.redirect(rq, "/app/members")
}

func (s *Server) deleteRole(rq *Request) error {
	if err := s.svc.DeleteRole(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return s.deleteFailed(rq, err)
	}
	return s.redirect(rq, "/app/members")
}

// deleteFailed answers a refused removal: htmx (the button asked first) shows the reason
// in the alert area; a plain form gets the page again with the reason above the list.
func (s *Server) deleteFailed(rq *Request, err error) error {
	if rq.HTMX() {
		return err
	}
	return s.membersFailed(rq, form{}, rq.Params.ByName("id"), err)
}

// resetLink is POST /app/members/{id}/link: a new one-time set-password link for a member
// (their earlier links stop working).
func (s *Server) resetLink(rq *Request) error {
	m, err := s.svc.GetMember(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	token, err := s.auth.IssueLink(rq.Ctx(), rq.Org(), m.ID, signin.PurposeReset)
	if err != nil {
		return err
	}
	return s.showLink(rq, m, token, signin.PurposeReset)
}

// showLink shows a member's new one-time link once, after mailing it to them when the server
// mails (linkmail.go).
func (s *Server) showLink(rq *Request, m app.Member, token, purpose string) error {
	v, err := s.membersView(rq)
	if err != nil {
		return err
	}
	v.Link, v.LinkFor = s.linkURL(rq.R, token), m.Email
	v.Mailed, v.MailFail = s.mailLink(rq, m, v.Link, purpose)
	return s.render(rq, http.StatusOK, "members", s.page(rq, "Members", v))
}

// linkURL is the set-password page of a token, on the public URL.
func (s *Server) linkURL(r *http.Request, token string) string {
	base := s.origin
	if base == "" || strings.HasSuffix(base, ":0") {
		base = "http://" + r.Host
	}
	return base + "/app/setup?token=" + token
}

// SetupURL is the set-up page of a token under a base URL (the serve banner prints it).
func SetupURL(base, token string) string {
	return strings.TrimSuffix(base, "/") + "/app/setup?token=" + token
}
