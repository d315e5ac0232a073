package web

import (
	"net/http"
	"strings"

	"wsapi/app/signin"
)

// signinForm is what the sign-in and set-up pages show back.
type signinForm struct {
	Email   string
	Next    string
	Error   string
	Notice  string
	Token   string // set-up: the link's token
	Name    string // set-up: whose password is set
	Purpose string
}

func (s *Server) signinPage(rq *Request) error {
	if _, err := s.auth.Authenticate(rq.Ctx(), s.sessionToken(rq.R)); err == nil {
		http.Redirect(rq.W, rq.R, safeNext(rq.R.URL.Query().Get("next")), http.StatusSeeOther)
		return nil
	}
	f := signinForm{Next: rq.R.URL.Query().Get("next")}
	if rq.R.URL.Query().Get("out") != "" {
		f.Notice = "You are signed out."
	}
	return s.render(rq, http.StatusOK, "signin", page{Title: "Sign in", Body: f})
}

func (s *Server) signinSubmit(rq *Request) error {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	email, password := rq.R.PostFormValue("email"), rq.R.PostFormValue("password")
	f := signinForm{Email: email, Next: rq.R.PostFormValue("next")}
	ses, err := s.auth.SignIn(rq.Ctx(), email, password, s.cfg.ClientIP(rq.R), rq.R.UserAgent())
	if err != nil {
		status, msg := describe(err)
		if status == http.StatusInternalServerError {
			return err
		}
		if status == http.StatusUnauthorized {
			msg = "The email or the password is wrong. Check both and try again; if you forgot your password, ask an admin for a new link."
		}
		if status == http.StatusTooManyRequests {
			s.writeRetryAfter(rq, err)
		}
		f.Error = msg
		return s.render(rq, status, "signin", page{Title: "Sign in", Body: f})
	}
	s.setSession(rq.W, ses)
	http.Redirect(rq.W, rq.R, safeNext(f.Next), http.StatusSeeOther)
	return nil
}

func (s *Server) writeRetryAfter(rq *Request, err error) {
	if th, ok := err.(*signin.Throttled); ok {
		rq.W.Header().Set("Retry-After", itoa(int(th.RetryAfter.Seconds()+0.999)))
	}
}

// safeNext keeps a redirect after sign-in inside the web app.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/app/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return "/app/"
}

func (s *Server) setupPage(rq *Request) error {
	token := rq.R.URL.Query().Get("token")
	l, m, err := s.auth.LinkMember(rq.Ctx(), token)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "setup", page{Title: "Set your password",
		Body: signinForm{Token: token, Name: m.Name, Email: m.Email, Purpose: l.Purpose}})
}

// setupSubmit sets the password through a one-time link, then signs the member in.
func (s *Server) setupSubmit(rq *Request) error {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	token := rq.R.PostFormValue("token")
	password, again := rq.R.PostFormValue("password"), rq.R.PostFormValue("password_again")
	l, m, err := s.auth.LinkMember(rq.Ctx(), token)
	if err != nil {
		return err
	}
	f := signinForm{Token: token, Name: m.Name, Email: m.Email, Purpose: l.Purpose}
	if password != again {
		f.Error = "The two passwords differ. Type the same password twice."
		return s.render(rq, http.StatusBadRequest, "setup", page{Title: "Set your password", Body: f})
	}
	if err := signin.ValidatePassword(password); err != nil {
		_, f.Error = describe(err)
		return s.render(rq, http.StatusBadRequest, "setup", page{Title: "Set your password", Body: f})
	}
	if m, err = s.auth.UseLink(rq.Ctx(), token, password); err != nil {
		return err
	}
	ses, err := s.auth.OpenSession(rq.Ctx(), m, s.cfg.ClientIP(rq.R), rq.R.UserAgent())
	if err != nil {
		return err
	}
	s.setSession(rq.W, ses)
	http.Redirect(rq.W, rq.R, "/app/", http.StatusSeeOther)
	return nil
}

func (s *Server) signout(rq *Request) error {
	if err := s.auth.SignOut(rq.Ctx(), rq.Session); err != nil {
		return err
	}
	s.clearSession(rq.W)
	return s.redirect(rq, "/app/signin?out=1")
}

func (s *Server) signoutEverywhere(rq *Request) error {
	if _, err := s.auth.SignOutEverywhere(rq.Ctx(), rq.Session.MemberID); err != nil {
		return err
	}
	s.clearSession(rq.W)
	return s.redirect(rq, "/app/signin?out=1")
}

// redirect sends the browser on: htmx follows HX-Redirect, a form a 303.
func (s *Server) redirect(rq *Request, to string) error {
	if rq.HTMX() {
		rq.W.Header().Set("HX-Redirect", to)
		rq.W.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(rq.W, rq.R, to, http.StatusSeeOther)
	return nil
}
