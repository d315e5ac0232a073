package app

// WebSession is a member signed in to the web app (app/signin, app/web): a revocable row,
// found by the SHA-256 of the token its browser holds in a cookie.
type WebSession struct {
	ID        string
	OrgID     string
	MemberID  string
	CreatedAt Time
	ExpiresAt Time
	UserAgent string
	IP        string
}

// PasswordLink is a one-time link that sets a member's password: the owner's set-up link,
// an invite, a reset. Found by the SHA-256 of its token; using it deletes it.
type PasswordLink struct {
	OrgID     string
	MemberID  string
	Purpose   string
	CreatedAt Time
	ExpiresAt Time
}

// MemberPassword is a member with the argon2id hash of its password.
type MemberPassword struct {
	Member Member
	Hash   string
}

// SignInTx is the sign-in part of a transaction. Deleting a member deletes its password,
// sessions and links with it.
type SignInTx interface {
	// SetPassword stores (or replaces) a member's password hash.
	SetPassword(memberID, hash string, now Time) error
	// PasswordsByEmail answers the members with that email (any organization) that have a
	// password, oldest first.
	PasswordsByEmail(email string) ([]MemberPassword, error)
	// MembersByEmail answers every member with that email, oldest first.
	MembersByEmail(email string) ([]Member, error)
	CreateWebSession(s WebSession, tokenHash []byte) error
	// WebSessionPrincipal reads a session by its token's hash with its member and the
	// member's permissions, read fresh so that a role change applies on the next request.
	WebSessionPrincipal(tokenHash []byte) (WebSession, Principal, error)
	DeleteWebSession(memberID, id string) error
	// DeleteWebSessions signs a member out everywhere and answers how many sessions ended.
	DeleteWebSessions(memberID string) (int, error)
	// DeleteExpiredWebSessions removes sessions and links past their expiry.
	DeleteExpiredWebSessions(now Time) (int, error)
	CreatePasswordLink(l PasswordLink, tokenHash []byte) error
	// GetPasswordLink reads a link without using it; TakePasswordLink reads and deletes it.
	GetPasswordLink(tokenHash []byte) (PasswordLink, error)
	TakePasswordLink(tokenHash []byte) (PasswordLink, error)
	// DeletePasswordLinks removes a member's pending links (a new link replaces them).
	DeletePasswordLinks(memberID string) error
}
