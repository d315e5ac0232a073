package api

import "wsapi/app"

// The routes of assistant integrations (DESIGN.md, "Channels"): {id} is the assistant,
// {integration_id} the integration.

func (s *Server) listDeployments(rq *Request) error {
	return list(rq, func(pg app.Page) (app.List[app.Deployment], error) {
		return s.svc.ListDeployments(rq.Ctx(), rq.Org(), rq.Param("id"), pg)
	})
}

func (s *Server) createDeployment(rq *Request) error {
	return withBody(rq, func(in app.DeploymentInput) error {
		return rq.Created(s.svc.CreateDeployment(rq.Ctx(), rq.Org(), rq.Param("id"), in))
	})
}

func (s *Server) getDeployment(rq *Request) error {
	return rq.OK(s.svc.GetDeployment(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("integration_id")))
}

func (s *Server) updateDeployment(rq *Request) error {
	return withBody(rq, func(in app.DeploymentPatch) error {
		return rq.OK(s.svc.UpdateDeployment(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("integration_id"), in))
	})
}

func (s *Server) deleteDeployment(rq *Request) error {
	return rq.NoContent(s.svc.DeleteDeployment(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("integration_id")))
}

func (s *Server) rotateDeployment(rq *Request) error {
	return rq.OK(s.svc.RotateDeploymentKey(rq.Ctx(), rq.Org(), rq.Param("id"), rq.Param("integration_id")))
}
