package api

import (
	"encoding/base64"
	"fmt"
	"net/http"

	"wsapi/app"
)

// The routes behind links in mailed messages: no credential, the token is the authority.

const pageHead = `<!doctype html><html><head><meta charset="utf-8"><meta name="robots" content="noindex">` +
	`<meta name="viewport" content="width=device-width"><title>%s</title></head>` +
	`<body style="font-family:sans-serif;max-width:32rem;margin:4rem auto">`

const confirmPage = `<h1>Unsubscribe?</h1><p>You will no longer receive these messages.</p>` +
	`<form method="post"><input type="hidden" name="confirm" value="yes">` +
	`<button type="submit" style="font-size:1.1rem;padding:.5rem 1.5rem">Unsubscribe</button></form></body></html>`

const unsubscribedPage = `<h1>You are unsubscribed</h1><p>You will not receive these messages any more.</p></body></html>`

const badLinkPage = `<h1>This link is not valid</h1>` +
	`<p>It may have been cut short by your mail program. Try the link in the latest message.</p></body></html>`

// unsubscribe serves the link people click: GET only asks for confirmation, because mail
// scanners and previews fetch links; the page's button POSTs. RFC 8058 one-click
// (List-Unsubscribe=One-Click) is a POST too and answers JSON; the page's form answers a page.
func (s *Server) unsubscribe(rq *Request) error {
	person := rq.R.Method == http.MethodGet || isConfirmForm(rq.R)
	var err error
	if rq.R.Method == http.MethodGet {
		err = s.svc.CheckUnsubscribeToken(rq.Ctx(), rq.Param("token"))
	} else {
		err = s.svc.UnsubscribeByToken(rq.Ctx(), rq.Param("token"))
	}
	switch {
	case person && app.IsNotFound(err):
		return writePage(rq, http.StatusNotFound, "Link not valid", badLinkPage)
	case err != nil:
		return err
	case rq.R.Method == http.MethodGet:
		return writePage(rq, http.StatusOK, "Unsubscribe", confirmPage)
	case person:
		return writePage(rq, http.StatusOK, "Unsubscribed", unsubscribedPage)
	}
	return rq.JSON(http.StatusOK, map[string]bool{"unsubscribed": true})
}

// isConfirmForm tells the confirmation page's own form from a mail client's one-click POST.
func isConfirmForm(r *http.Request) bool {
	r.Body = http.MaxBytesReader(nil, r.Body, 4096)
	return r.ParseForm() == nil && r.PostForm.Get("confirm") == "yes"
}

func writePage(rq *Request, status int, title, body string) error {
	h := rq.W.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	rq.W.WriteHeader(status)
	_, err := fmt.Fprintf(rq.W, pageHead+"%s", title, body)
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
