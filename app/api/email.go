package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) createDomain(rq *Request) error {
	var in app.DomainInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	d, err := s.svc.CreateDomain(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, d)
}

func (s *Server) listDomains(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListDomains(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) getDomain(rq *Request) error {
	d, err := s.svc.GetDomain(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, d)
}

func (s *Server) deleteDomain(rq *Request) error {
	if err := s.svc.DeleteDomain(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) verifyDomain(rq *Request) error {
	d, err := s.svc.VerifyDomain(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, d)
}

func (s *Server) createIdentity(rq *Request) error {
	var in app.IdentityInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	e, err := s.svc.CreateIdentity(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, e)
}

func (s *Server) listIdentities(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListIdentities(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) getIdentity(rq *Request) error {
	e, err := s.svc.GetIdentity(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, e)
}

func (s *Server) patchIdentity(rq *Request) error {
	var in app.IdentityPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	e, err := s.svc.UpdateIdentity(rq.Ctx(), rq.Org(), rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, e)
}

func (s *Server) deleteIdentity(rq *Request) error {
	if err := s.svc.DeleteIdentity(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) verifyIdentity(rq *Request) error {
	e, err := s.svc.VerifyIdentity(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, e)
}

func (s *Server) orgByDomain(rq *Request) error {
	p, err := s.svc.OrgByDomain(rq.Ctx(), rq.Param("hostname"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, p)
}
