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
	CanWrite bool
	Link     string // a password link made just now: shown once
	LinkFor  string
	Error    string
	CSRF     string
}

func (s *Server) membersView(rq *Request) (membersView, error) {
	v := membersView{CanWrite: rq.Can(app.Write("members")), CSRF: rq.CSRF()}
	ms, err := s.svc.ListMembers(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return v, err
	}
	v.Members = ms.Items
	if roles, err := s.svc.ListRoles(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake}); err == nil {
		v.Roles = roles.Items
	}
	return v, nil
}

// members is GET /app/members: who is in the organization, and (members:write) invites.
func (s *Server) members(rq *Request) error {
	v, err := s.membersView(rq)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "members", s.page(rq, "Members", v))
}

// invite is POST /app/members: creates the member through the API's CreateMember (the
// caller may grant only what it holds) and shows its one-time set-password link once.
func (s *Server) invite(rq *Request) error {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	in := app.MemberInput{Name: rq.R.PostFormValue("name"), Email: rq.R.PostFormValue("email"), Role: rq.R.PostFormValue("role")}
	m, err := s.svc.CreateMember(rq.Ctx(), rq.Caller(), in)
	if err == nil {
		var token string
		if token, err = s.auth.IssueLink(rq.Ctx(), rq.Org(), m.ID, signin.PurposeInvite); err == nil {
			return s.showLink(rq, m, token)
		}
	}
	status, msg := describe(err)
	if status == http.StatusInternalServerError {
		return err
	}
	v, verr := s.membersView(rq)
	if verr != nil {
		return verr
	}
	v.Error = msg
	return s.render(rq, status, "members", s.page(rq, "Members", v))
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
	return s.showLink(rq, m, token)
}

func (s *Server) showLink(rq *Request, m app.Member, token string) error {
	v, err := s.membersView(rq)
	if err != nil {
		return err
	}
	v.Link, v.LinkFor = s.linkURL(rq.R, token), m.Email
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
