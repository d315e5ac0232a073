package api

import (
	"encoding/base64"
	"net/http"

	"wsapi/app"
)

// The routes behind links in mailed messages: no credential, the token is the authority.

const unsubscribedPage = `<!doctype html><html><head><meta charset="utf-8"><title>Unsubscribed</title></head>
<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto"><h1>You are unsubscribed</h1>
<p>You will not receive these messages any more.</p></body></html>`

const badLinkPage = `<!doctype html><html><head><meta charset="utf-8"><title>Link not valid</title></head>
<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto"><h1>This link is not valid</h1>
<p>It may have been cut short by your mail program. Try the link in the latest message.</p></body></html>`

// unsubscribe serves both the link people click (GET) and RFC 8058 one-click (POST).
func (s *Server) unsubscribe(rq *Request) error {
	err := s.svc.UnsubscribeByToken(rq.Ctx(), rq.Param("token"))
	if app.IsNotFound(err) && rq.R.Method == http.MethodGet {
		// A person clicked it: answer a page, not JSON.
		rq.W.Header().Set("Content-Type", "text/html; charset=utf-8")
		rq.W.WriteHeader(http.StatusNotFound)
		_, werr := rq.W.Write([]byte(badLinkPage))
		return werr
	}
	if err != nil {
		return err
	}
	if rq.R.Method == http.MethodPost {
		return rq.JSON(http.StatusOK, map[string]bool{"unsubscribed": true})
	}
	rq.W.Header().Set("Content-Type", "text/html; charset=utf-8")
	rq.W.WriteHeader(http.StatusOK)
	_, err = rq.W.Write([]byte(unsubscribedPage))
	return err
}

// pixel is a transparent 1x1 GIF.
var pixel, _ = base64.StdEncoding.DecodeString("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")

func (s *Server) trackOpen(rq *Request) error {
	// A bad token still gets the image: mail clients show broken images otherwise.
	if err := s.svc.TrackOpen(rq.Ctx(), rq.Param("token")); err != nil {
		s.log.Debug("open tracking", "err", err)
	}
	h := rq.W.Header()
	h.Set("Content-Type", "image/gif")
	h.Set("Cache-Control", "no-store")
	_, err := rq.W.Write(pixel)
	return err
}

func (s *Server) trackClick(rq *Request) error {
	target, err := s.svc.TrackClick(rq.Ctx(), rq.Param("token"))
	if err != nil {
		return err
	}
	http.Redirect(rq.W, rq.R, target, http.StatusFound)
	return nil
}
