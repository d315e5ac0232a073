package api

import (
	"context"
	"net/http"
	"net/url"

	"wsapi/app"
)

// Challenges answers a provider's subscription check of a hook URL (Meta's hub.challenge).
type Challenges interface {
	Challenge(ctx context.Context, typ, asi string, query url.Values) (string, error)
}

// maxChallenge bounds the echoed hub.challenge (Meta's are a few digits): the route never
// reflects more than this of a caller's input.
const maxChallenge = 256

// hookChallenge echoes hub.challenge as text when hub.mode is subscribe and hub.verify_token
// is the integration's (constant time); 403 otherwise, 404 for an integration this route
// does not know.
func (s *Server) hookChallenge(rq *Request) error {
	c, ok := s.cfg.Hooks.(Challenges)
	if !ok {
		return app.NotFound("integration")
	}
	q := rq.R.URL.Query()
	if len(q.Get("hub.challenge")) > maxChallenge {
		return app.Invalid("hub.challenge", "must be at most 256 characters")
	}
	text, err := c.Challenge(rq.Ctx(), rq.Param("type"), rq.Param("asi"), q)
	if err != nil {
		return err
	}
	h := rq.W.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	rq.W.WriteHeader(http.StatusOK)
	_, err = rq.W.Write([]byte(text))
	return err
}
