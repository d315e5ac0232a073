package api

import (
	"context"
	"net/http"

	"wsapi/app"
)

// Hooks takes what messaging-app providers POST to /hooks/{type}/{asi} (app/channel/inbound's
// Receiver): it checks the request is the provider's and queues the raw body; the answer
// goes back at once, the body is processed later.
type Hooks interface {
	Receive(ctx context.Context, typ, asi string, header http.Header, body []byte) error
}

// hookBodyBytes bounds a provider's update: Telegram's and WhatsApp's are a few KiB (media
// come by reference, never inline).
const hookBodyBytes = 1 << 20

// hook is the public route of every messaging-app provider. It takes no key; the connector
// checks the provider's secret or signature before anything is stored. An integration that
// is unknown, deleted, of another type or of another organization is the same 404.
func (s *Server) hook(rq *Request) error {
	if s.cfg.Hooks == nil {
		return app.NotFound("integration")
	}
	body, err := readBody(rq.W, rq.R, rq.limit)
	if err != nil {
		return err
	}
	if err := s.cfg.Hooks.Receive(rq.Ctx(), rq.Param("type"), rq.Param("asi"), rq.R.Header, body); err != nil {
		return err
	}
	return rq.JSON(http.StatusOK, map[string]bool{"ok": true})
}
