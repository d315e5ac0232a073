package web

import (
	"net/http"

	"wsapi/app"
)

type keysView struct {
	Keys     []app.APIKey
	Members  map[string]string // member id -> name
	MemberL  []app.Member
	CanWrite bool
	CanOther bool   // members:write: a key for another member
	Token    string // a token made just now: shown once
	TokenFor string
	Form     form
}

func (s *Server) keysView(rq *Request) (keysView, error) {
	v := keysView{CanWrite: rq.Can(app.Write("keys")), CanOther: rq.Can(app.Write("members")), Members: map[string]string{}}
	ks, err := s.svc.ListKeys(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return v, err
	}
	v.Keys = ks.Items
	if rq.Can(app.Read("members")) {
		ms, err := s.svc.ListMembers(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
		if err != nil {
			return v, err
		}
		v.MemberL = ms.Items
		for _, m := range ms.Items {
			v.Members[m.ID] = m.Name
		}
	}
	return v, nil
}

func (s *Server) renderKeys(rq *Request, status int, v keysView) error {
	return s.render(rq, status, "keys", s.page(rq, "API keys", v))
}

// keys is GET /app/keys: the organization's keys (previews only).
func (s *Server) keys(rq *Request) error {
	v, err := s.keysView(rq)
	if err != nil {
		return err
	}
	return s.renderKeys(rq, http.StatusOK, v)
}

// createKey is POST /app/keys: the API's CreateKey with the member as the caller; the token
// is shown once, in this answer only.
func (s *Server) createKey(rq *Request) error {
	f := newForm(rq)
	nk, err := s.svc.CreateKey(rq.Ctx(), rq.Caller(), app.KeyInput{Name: f.Get("name"), MemberID: f.Get("member_id")})
	return s.keyAnswer(rq, f, nk, err)
}

// rotateKey is POST /app/keys/{id}/rotate: a new token, shown once; the old one stops.
func (s *Server) rotateKey(rq *Request) error {
	c := rq.Caller()
	nk, err := s.svc.RotateKey(rq.Ctx(), &c, rq.Org(), rq.Params.ByName("id"))
	return s.keyAnswer(rq, form{}, nk, err)
}

func (s *Server) keyAnswer(rq *Request, f form, nk app.NewKey, err error) error {
	status := http.StatusOK
	if err != nil {
		if status, err = f.failed(err); err != nil {
			return err
		}
	}
	v, verr := s.keysView(rq)
	if verr != nil {
		return verr
	}
	v.Form = f
	if err == nil && nk.Token != "" {
		v.Token, v.TokenFor = nk.Token, nk.Name
	}
	return s.renderKeys(rq, status, v)
}

// deleteKey is POST /app/keys/{id}/delete: the key stops working at once.
func (s *Server) deleteKey(rq *Request) error {
	c := rq.Caller()
	if err := s.svc.DeleteKey(rq.Ctx(), &c, rq.Org(), rq.Params.ByName("id")); err != nil {
		if rq.HTMX() {
			return err // the button asked first: the reason goes to the alert area
		}
		return s.keyAnswer(rq, form{}, app.NewKey{}, err)
	}
	return s.redirect(rq, "/app/keys")
}
