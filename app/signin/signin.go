package signin

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"wsapi/app"
)

// Lifetimes. A set-up link (the owner's, printed on first start, or a reset) lives an hour;
// an invite a week, as the invited person may read it later; a session 30 days.
const (
	SetupLinkLife  = time.Hour
	InviteLinkLife = 7 * 24 * time.Hour
	SessionLife    = 30 * 24 * time.Hour
)

// Link purposes.
const (
	PurposeSetup  = "setup"
	PurposeInvite = "invite"
	PurposeReset  = "reset"
)

// Token prefixes: a session's cookie and a password link's token.
const (
	sessionPrefix = "ws_"
	linkPrefix    = "pl_"
)

// Service runs the sign-in rules over the store.
type Service struct {
	store    app.Store
	clock    app.Clock
	throttle *throttle
}

// New makes the service.
func New(store app.Store, clock app.Clock) *Service {
	if clock == nil {
		clock = app.SystemClock{}
	}
	return &Service{store: store, clock: clock, throttle: newThrottle()}
}

func (s *Service) now() app.Time { return app.At(s.clock.Now()) }

func hash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// ErrBadCredentials reads alike for an unknown email and a wrong password.
var ErrBadCredentials = &app.Error{Code: app.CodeUnauthenticated, Message: "the email or the password is wrong"}

// ErrLinkInvalid is an unknown, used or expired link: all read alike.
var ErrLinkInvalid = &app.Error{Code: app.CodeNotFound,
	Message: "this link is not valid: it was used already or has expired; ask an admin for a new one, or run `app members password EMAIL` on the server"}

// Throttled is a refused attempt; RetryAfter says when to try again.
type Throttled struct{ RetryAfter time.Duration }

func (t *Throttled) Error() string {
	return "too many sign-in attempts; try again in " + t.RetryAfter.Round(time.Second).String()
}

// IssueLink makes a one-time password link for a member of orgID and answers its token;
// the member's earlier links stop working. Purpose fixes its lifetime.
func (s *Service) IssueLink(ctx context.Context, orgID, memberID, purpose string) (string, error) {
	life := SetupLinkLife
	if purpose == PurposeInvite {
		life = InviteLinkLife
	}
	token := linkPrefix + app.RandomBase62(43)
	now := s.now()
	err := s.store.Write(ctx, func(tx app.Tx) error {
		if _, err := tx.GetMember(orgID, memberID); err != nil {
			return err
		}
		if err := tx.DeletePasswordLinks(memberID); err != nil {
			return err
		}
		return tx.CreatePasswordLink(app.PasswordLink{OrgID: orgID, MemberID: memberID, Purpose: purpose,
			CreatedAt: now, ExpiresAt: app.At(now.Add(life))}, hash(token))
	})
	return token, err
}

// OwnerSetupLink makes the set-up link of an organization's owner (its first ADMIN), for the
// banner of a first start.
func (s *Service) OwnerSetupLink(ctx context.Context, orgID string) (token string, owner app.Member, err error) {
	err = s.store.Read(ctx, func(tx app.Tx) error {
		owner, err = tx.FirstAdmin(orgID)
		return err
	})
	if err != nil {
		return "", owner, err
	}
	token, err = s.IssueLink(ctx, orgID, owner.ID, PurposeSetup)
	return token, owner, err
}

// LinkMember reads, without using it, the member a valid link sets the password of.
func (s *Service) LinkMember(ctx context.Context, token string) (l app.PasswordLink, m app.Member, err error) {
	if !strings.HasPrefix(token, linkPrefix) {
		return l, m, ErrLinkInvalid
	}
	err = s.store.Read(ctx, func(tx app.Tx) error {
		if l, err = tx.GetPasswordLink(hash(token)); err != nil {
			return err
		}
		m, err = tx.GetMember(l.OrgID, l.MemberID)
		return err
	})
	if app.IsNotFound(err) || (err == nil && !l.ExpiresAt.After(s.clock.Now())) {
		return l, m, ErrLinkInvalid
	}
	return l, m, err
}

// ValidatePassword checks a new password's length, in characters.
func ValidatePassword(password string) error {
	switch n := app.CharCount(password); {
	case n < MinPasswordChars:
		return app.Invalid("password", "must be at least 10 characters")
	case n > MaxPasswordChars:
		return app.Invalid("password", "must be at most 256 characters")
	}
	return nil
}

// UseLink sets the password of a link's member and uses the link up; every session of the
// member ends (a password change signs out everywhere). It answers the member.
func (s *Service) UseLink(ctx context.Context, token, password string) (m app.Member, err error) {
	if err := ValidatePassword(password); err != nil {
		return m, err
	}
	if !strings.HasPrefix(token, linkPrefix) {
		return m, ErrLinkInvalid
	}
	phc, err := HashPassword(password) // outside the write: it takes tens of milliseconds
	if err != nil {
		return m, err
	}
	now := s.now()
	err = s.store.Write(ctx, func(tx app.Tx) error {
		l, err := tx.TakePasswordLink(hash(token))
		if err != nil {
			return err
		}
		if !l.ExpiresAt.After(now.Time) {
			return ErrLinkInvalid // taken all the same: an expired link is gone
		}
		if m, err = tx.GetMember(l.OrgID, l.MemberID); err != nil {
			return err
		}
		return setPassword(tx, m.ID, phc, now)
	})
	if app.IsNotFound(err) {
		return m, ErrLinkInvalid
	}
	return m, err
}

func setPassword(tx app.Tx, memberID, phc string, now app.Time) error {
	if err := tx.SetPassword(memberID, phc, now); err != nil {
		return err
	}
	if _, err := tx.DeleteWebSessions(memberID); err != nil {
		return err
	}
	return tx.DeletePasswordLinks(memberID)
}

// SetPasswordByEmail is `app members password EMAIL`: sets the password of the member with
// that email (of orgID when given; without it, the email must name one member only) and
// ends its sessions.
func (s *Service) SetPasswordByEmail(ctx context.Context, orgID, email, password string) (m app.Member, err error) {
	if err := ValidatePassword(password); err != nil {
		return m, err
	}
	phc, err := HashPassword(password)
	if err != nil {
		return m, err
	}
	err = s.store.Write(ctx, func(tx app.Tx) error {
		if m, err = memberByEmail(tx, orgID, email); err != nil {
			return err
		}
		return setPassword(tx, m.ID, phc, s.now())
	})
	return m, err
}

func memberByEmail(tx app.Tx, orgID, email string) (app.Member, error) {
	ms, err := tx.MembersByEmail(strings.ToLower(strings.TrimSpace(email)))
	if err != nil {
		return app.Member{}, err
	}
	var found []app.Member
	for _, m := range ms {
		if orgID == "" || m.OrgID == orgID {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return app.Member{}, app.NotFound("member with email " + email)
	case 1:
		return found[0], nil
	}
	return app.Member{}, app.Invalid("org", "several organizations have a member with this email; name one with --org")
}

// Session is a signed-in browser as the web app sees it: the session, its token (only on
// sign-in) and the principal it acts as.
type Session struct {
	app.WebSession
	Token     string
	Principal app.Principal
}

// SignIn checks an email and password, throttled per account and per IP, and opens a
// session. Members with the same email in several organizations: the oldest whose password
// matches.
func (s *Service) SignIn(ctx context.Context, email, password, ip, userAgent string) (Session, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if ok, wait := s.throttle.allow(s.clock.Now(), email, ip); !ok {
		return Session{}, &Throttled{RetryAfter: wait}
	}
	if email == "" || password == "" || app.CharCount(password) > MaxPasswordChars {
		return Session{}, ErrBadCredentials
	}
	var candidates []app.MemberPassword
	err := s.store.Read(ctx, func(tx app.Tx) (err error) {
		candidates, err = tx.PasswordsByEmail(email)
		return err
	})
	if err != nil {
		return Session{}, err
	}
	if len(candidates) == 0 {
		_, _ = CheckPassword(dummyHash(), password) // the same time as a wrong password
		return Session{}, ErrBadCredentials
	}
	for _, c := range candidates {
		if ok, _ := CheckPassword(c.Hash, password); ok {
			return s.open(ctx, c.Member, ip, userAgent)
		}
	}
	return Session{}, ErrBadCredentials
}

// OpenSession signs a member in (after setting a password through a link).
func (s *Service) OpenSession(ctx context.Context, m app.Member, ip, userAgent string) (Session, error) {
	return s.open(ctx, m, ip, userAgent)
}

func (s *Service) open(ctx context.Context, m app.Member, ip, userAgent string) (Session, error) {
	now := s.now()
	ses := Session{Token: sessionPrefix + app.RandomBase62(43)}
	ses.WebSession = app.WebSession{ID: app.NewID("ses"), OrgID: m.OrgID, MemberID: m.ID, CreatedAt: now,
		ExpiresAt: app.At(now.Add(SessionLife)), UserAgent: truncate(userAgent, 255), IP: ip}
	err := s.store.Write(ctx, func(tx app.Tx) error {
		if err := tx.CreateWebSession(ses.WebSession, hash(ses.Token)); err != nil {
			return err
		}
		var err error
		_, ses.Principal, err = tx.WebSessionPrincipal(hash(ses.Token))
		return err
	})
	return ses, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// ErrNoSession is a missing, unknown, ended or expired session: all read alike.
var ErrNoSession = &app.Error{Code: app.CodeUnauthenticated, Message: "not signed in"}

// Authenticate finds the session of a cookie's token with its principal, the member's role
// read fresh.
func (s *Service) Authenticate(ctx context.Context, token string) (ses Session, err error) {
	if !strings.HasPrefix(token, sessionPrefix) {
		return ses, ErrNoSession
	}
	err = s.store.Read(ctx, func(tx app.Tx) error {
		ses.WebSession, ses.Principal, err = tx.WebSessionPrincipal(hash(token))
		return err
	})
	if app.IsNotFound(err) || (err == nil && !ses.ExpiresAt.After(s.clock.Now())) {
		return Session{}, ErrNoSession
	}
	return ses, err
}

// SignOut ends one session.
func (s *Service) SignOut(ctx context.Context, ses Session) error {
	err := s.store.Write(ctx, func(tx app.Tx) error { return tx.DeleteWebSession(ses.MemberID, ses.ID) })
	if app.IsNotFound(err) {
		return nil
	}
	return err
}

// SignOutEverywhere ends every session of the member and answers how many there were.
func (s *Service) SignOutEverywhere(ctx context.Context, memberID string) (n int, err error) {
	err = s.store.Write(ctx, func(tx app.Tx) error {
		n, err = tx.DeleteWebSessions(memberID)
		return err
	})
	return n, err
}

// PurgeExpired removes sessions and links past their expiry (a janitor task).
func (s *Service) PurgeExpired(ctx context.Context) (n int, err error) {
	err = s.store.Write(ctx, func(tx app.Tx) error {
		n, err = tx.DeleteExpiredWebSessions(s.now())
		return err
	})
	return n, err
}
