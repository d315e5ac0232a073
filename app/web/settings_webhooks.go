package web

import (
	"net/http"

	"wsapi/app"
)

type webhooksView struct {
	Hooks    []app.Webhook
	Events   []app.EventType
	CanWrite bool
	Form     form
	Secret   string // a secret made just now: shown once
}

type webhookView struct {
	Hook       app.Webhook
	Events     []app.EventType
	Deliveries []app.Delivery
	CanWrite   bool
	Form       form
	Secret     string
	Test       *app.Attempt // the test ping just sent
	Notice     string
}

func (s *Server) webhooksView(rq *Request) (webhooksView, error) {
	v := webhooksView{Events: app.EventTypes, CanWrite: rq.Can(app.Write("webhooks"))}
	l, err := s.svc.ListWebhooks(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
	v.Hooks = l.Items
	return v, err
}

// webhooks is GET /app/webhooks: the endpoints and a form for a new one.
func (s *Server) webhooks(rq *Request) error {
	v, err := s.webhooksView(rq)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "webhooks", s.page(rq, "Webhooks", v))
}

// createWebhook is POST /app/webhooks: the API's CreateWebhook; its secret is shown once.
func (s *Server) createWebhook(rq *Request) error {
	f := newForm(rq)
	w, err := s.svc.CreateWebhook(rq.Ctx(), rq.Org(), app.WebhookInput{Name: f.Get("name"), URL: f.Get("url"), Events: eventsOf(f)})
	status := http.StatusOK
	if err != nil {
		if status, err = f.failed(err); err != nil {
			return err
		}
	}
	v, verr := s.webhooksView(rq)
	if verr != nil {
		return verr
	}
	if status == http.StatusOK {
		v.Secret = w.Secret
	} else {
		v.Form = f
	}
	return s.render(rq, status, "webhooks", s.page(rq, "Webhooks", v))
}

// eventsOf reads the ticked events; none is an empty list the API refuses by name.
func eventsOf(f form) []string {
	ev := f.Values["events"]
	if ev == nil {
		ev = []string{}
	}
	return ev
}

func (s *Server) webhookView(rq *Request) (webhookView, error) {
	v := webhookView{Events: app.EventTypes, CanWrite: rq.Can(app.Write("webhooks"))}
	var err error
	if v.Hook, err = s.svc.GetWebhook(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return v, err
	}
	ds, err := s.svc.ListDeliveries(rq.Ctx(), rq.Org(), v.Hook.ID, "", app.Page{Page: 1, Take: 50})
	v.Deliveries = ds.Items
	return v, err
}

func (s *Server) renderWebhook(rq *Request, status int, v webhookView) error {
	return s.render(rq, status, "webhook", s.page(rq, "Webhook "+v.Hook.Name, v))
}

// webhook is GET /app/webhooks/{id}: the endpoint, why it is disabled, its last deliveries
// with every attempt.
func (s *Server) webhook(rq *Request) error {
	v, err := s.webhookView(rq)
	if err != nil {
		return err
	}
	return s.renderWebhook(rq, http.StatusOK, v)
}

// updateWebhook is POST /app/webhooks/{id}: name, URL, events and enabled, as the API's
// PATCH (enabling again clears the disabled reason there).
func (s *Server) updateWebhook(rq *Request) error {
	f := newForm(rq)
	name, url, enabled := f.Get("name"), f.Get("url"), f.Get("enabled") == "on"
	_, err := s.svc.UpdateWebhook(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), app.WebhookPatch{Name: &name, URL: &url, Events: eventsOf(f), Enabled: &enabled})
	if err == nil {
		return s.redirect(rq, "/app/webhooks/"+rq.Params.ByName("id"))
	}
	status, err := f.failed(err)
	if err != nil {
		return err
	}
	v, verr := s.webhookView(rq)
	if verr != nil {
		return verr
	}
	v.Form = f
	return s.renderWebhook(rq, status, v)
}

func (s *Server) deleteWebhook(rq *Request) error {
	if err := s.svc.DeleteWebhook(rq.Ctx(), rq.Org(), rq.Params.ByName("id")); err != nil {
		return err
	}
	return s.redirect(rq, "/app/webhooks")
}

// testWebhook is POST /app/webhooks/{id}/test: a signed ping now, its attempt shown.
func (s *Server) testWebhook(rq *Request) error {
	a, err := s.svc.TestWebhook(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	v, err := s.webhookView(rq)
	if err != nil {
		return err
	}
	v.Test = &a
	return s.renderWebhook(rq, http.StatusOK, v)
}

// rotateWebhook is POST /app/webhooks/{id}/rotate: a new signing secret, shown once.
func (s *Server) rotateWebhook(rq *Request) error {
	w, err := s.svc.RotateWebhookSecret(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	v, err := s.webhookView(rq)
	if err != nil {
		return err
	}
	v.Secret = w.Secret
	return s.renderWebhook(rq, http.StatusOK, v)
}

// replayDelivery is POST /app/webhooks/{id}/deliveries/{did}/replay: the API's replay (the
// delivery is due again; the worker sends it).
func (s *Server) replayDelivery(rq *Request) error {
	if _, err := s.svc.ReplayDelivery(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("did")); err != nil {
		return err
	}
	v, err := s.webhookView(rq)
	if err != nil {
		return err
	}
	v.Notice = "The delivery is queued again; it shows below once sent."
	return s.renderWebhook(rq, http.StatusOK, v)
}
