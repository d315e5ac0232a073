package api

import (
	"context"
	"encoding/json"

	"wsapi/app"
)

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

// widgetKeyCurrent: the answer's widget secret_key is still its integration's (an
// Idempotency-Key replay never shows a rotated key). An answer without one holds no secret.
func (s *Server) widgetKeyCurrent(ctx context.Context, org string, answer []byte) (bool, error) {
	var d struct {
		ID        string `json:"id"`
		SecretKey string `json:"secret_key"`
	}
	if json.Unmarshal(answer, &d) != nil || d.SecretKey == "" {
		return true, nil
	}
	return s.svc.WidgetKeyCurrent(ctx, org, d.ID, d.SecretKey)
}
