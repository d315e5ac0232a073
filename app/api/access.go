package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) getOrg(rq *Request) error {
	org, err := s.svc.GetOrg(rq.Ctx(), rq.Org())
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, org)
}

func (s *Server) patchOrg(rq *Request) error {
	var in app.OrgPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	org, err := s.svc.UpdateOrg(rq.Ctx(), rq.Org(), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, org)
}

func (s *Server) listSubOrgs(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListSubOrgs(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createSubOrg(rq *Request) error {
	var in app.OrgInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	org, err := s.svc.CreateOrg(rq.Ctx(), in, rq.Org())
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, org)
}

func (s *Server) listMembers(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListMembers(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createMember(rq *Request) error {
	var in app.MemberInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.CreateMember(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, m)
}

func (s *Server) getMember(rq *Request) error {
	m, err := s.svc.GetMember(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}

func (s *Server) patchMember(rq *Request) error {
	var in app.MemberPatch
	if err := rq.Decode(&in); err != nil {
		return err
	}
	m, err := s.svc.UpdateMember(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, m)
}

func (s *Server) deleteMember(rq *Request) error {
	if err := s.svc.DeleteMember(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) listRoles(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListRoles(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createRole(rq *Request) error {
	var in app.RoleInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	role, err := s.svc.CreateRole(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, role)
}

func (s *Server) getRole(rq *Request) error {
	role, err := s.svc.GetRole(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, role)
}

func (s *Server) patchRole(rq *Request) error {
	var in app.RoleInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	role, err := s.svc.UpdateRole(rq.Ctx(), rq.Caller, rq.Param("id"), in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, role)
}

func (s *Server) deleteRole(rq *Request) error {
	if err := s.svc.DeleteRole(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) listKeys(rq *Request) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := s.svc.ListKeys(rq.Ctx(), rq.Org(), pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

func (s *Server) createKey(rq *Request) error {
	var in app.KeyInput
	if err := rq.Decode(&in); err != nil {
		return err
	}
	k, err := s.svc.CreateKey(rq.Ctx(), rq.Caller, in)
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusCreated, k)
}

func (s *Server) rotateKey(rq *Request) error {
	k, err := s.svc.RotateKey(rq.Ctx(), &rq.Caller, rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, k)
}

func (s *Server) deleteKey(rq *Request) error {
	if err := s.svc.DeleteKey(rq.Ctx(), &rq.Caller, rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	return rq.NoContent()
}

func (s *Server) healthz(rq *Request) error {
	if err := s.db.Ping(rq.Ctx()); err != nil {
		s.log.Error("health check failed", "err", err)
		return rq.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return rq.JSON(http.StatusOK, map[string]string{"status": "ok", "version": s.cfg.Version})
}
