package api

import (
	"net/http"

	"wsapi/app"
)

func (s *Server) getOrg(rq *Request) error {
	return rq.OK(s.svc.GetOrg(rq.Ctx(), rq.Org()))
}

func (s *Server) patchOrg(rq *Request) error {
	return withBody(rq, func(in app.OrgPatch) error {
		return rq.OK(s.svc.UpdateOrg(rq.Ctx(), rq.Org(), in))
	})
}

func (s *Server) createSubOrg(rq *Request) error {
	return withBody(rq, func(in app.OrgInput) error {
		return rq.Created(s.svc.CreateOrg(rq.Ctx(), in, rq.Org()))
	})
}

func (s *Server) rotateKey(rq *Request) error {
	return rq.OK(s.svc.RotateKey(rq.Ctx(), &rq.Caller, rq.Org(), rq.Param("id")))
}

func (s *Server) deleteKey(rq *Request) error {
	return rq.NoContent(s.svc.DeleteKey(rq.Ctx(), &rq.Caller, rq.Org(), rq.Param("id")))
}

func (s *Server) healthz(rq *Request) error {
	if err := s.db.Ping(rq.Ctx()); err != nil {
		s.log.Error("health check failed", "err", err)
		return rq.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return rq.JSON(http.StatusOK, map[string]string{"status": "ok", "version": s.cfg.Version})
}
