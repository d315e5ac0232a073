package app

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// APIKey is a credential. Only the SHA-256 of its token is stored; the token is shown once.
type APIKey struct {
	ID        string `json:"id"`
	OrgID     string `json:"org_id"`
	MemberID  string `json:"member_id"`
	Name      string `json:"name"`
	Preview   string `json:"preview"`
	CreatedAt Time   `json:"created_at"`
	RotatedAt Time   `json:"rotated_at"`
}

// NewKey is a key with its token, answered only by create and rotate.
type NewKey struct {
	APIKey
	Token string `json:"token"`
}

// KeyTx is the keys part of a transaction.
type KeyTx interface {
	CreateKey(k APIKey, hash []byte) error
	GetKey(orgID, id string) (APIKey, error)
	ListKeys(orgID string, p Page) ([]APIKey, int, error)
	ReplaceKeyHash(k APIKey, hash []byte) error
	DeleteKey(orgID, id string) error
	// Authenticate finds the key of a token hash with its member and that member's
	// permissions, read fresh so that a role change applies on the next request.
	Authenticate(hash []byte) (Principal, []byte, error)
	// AuthVersion grows with every change to a key, a member or a role (app/authcache.go).
	AuthVersion() (int64, error)
}

// TokenPrefix starts every API token.
const TokenPrefix = "sk_"

// newToken makes "sk_" + 43 base62 characters (256 random bits).
func newToken() string { return TokenPrefix + RandomBase62(43) }

// HashToken is the SHA-256 stored for a token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// tokenPreview shows the first 8 and last 4 characters.
func tokenPreview(token string) string { return token[:8] + "…" + token[len(token)-4:] }

// Principal is who a request acts as: a key, its member and what the member may do.
type Principal struct {
	Key    APIKey
	Member Member
	Perms  PermissionSet
}

// Caller is a principal acting on one organization: the key's own or a descendant.
type Caller struct {
	Principal
	OrgID string
}

// Authenticate resolves a bearer token. Unknown, rotated and deleted tokens all read alike.
func (s *Service) Authenticate(ctx context.Context, token string) (p Principal, err error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return p, &Error{Code: CodeUnauthenticated, Message: "missing or invalid API key"}
	}
	hash := HashToken(token)
	p, stored, err := s.authenticate(ctx, hash)
	if IsNotFound(err) || (err == nil && subtle.ConstantTimeCompare(hash, stored) != 1) {
		return Principal{}, &Error{Code: CodeUnauthenticated, Message: "missing or invalid API key"}
	}
	return p, err
}

// ResolveOrg turns the {org} of a path into an organization id the principal may act on:
// "c" is the key's own organization; any other id must be it or a descendant, else 404.
func (s *Service) ResolveOrg(ctx context.Context, p Principal, org string) (string, error) {
	if org == "c" || org == p.Key.OrgID {
		return p.Key.OrgID, nil
	}
	var within bool
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		within, err = tx.OrgWithin(org, p.Key.OrgID)
		return err
	})
	if err != nil {
		return "", err
	}
	if !within {
		return "", NotFound("organization")
	}
	return org, nil
}

// KeyInput creates a key. Without member_id the key acts as the caller's own member.
type KeyInput struct {
	Name     string `json:"name"`
	MemberID string `json:"member_id"`
}

// CreateKey makes a key for a member of the caller's target organization. Making a key for
// someone else needs members:write, so keys:write alone cannot borrow an admin's rights.
func (s *Service) CreateKey(ctx context.Context, c Caller, in KeyInput) (NewKey, error) {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	if in.MemberID == "" && c.OrgID != c.Member.OrgID {
		p.Add("member_id", "is required for a key of another organization")
	}
	if err := p.Err(); err != nil {
		return NewKey{}, err
	}
	if in.MemberID == "" {
		in.MemberID = c.Member.ID
	}
	if in.MemberID != c.Member.ID && !c.Perms.Has(Write("members")) {
		return NewKey{}, Forbidden(Write("members"))
	}
	var nk NewKey
	err := s.d.Store.Write(ctx, func(tx Tx) (err error) {
		m, err := tx.GetMember(c.OrgID, in.MemberID)
		if err != nil {
			return err
		}
		if m.ID != c.Member.ID {
			if err := checkGrant(tx, c, m.Role); err != nil {
				return err // a key acting as someone with more rights than the caller
			}
		}
		nk, err = insertKey(tx, c.OrgID, in.MemberID, strings.TrimSpace(in.Name), s.now())
		return err
	})
	return nk, err
}

func insertKey(tx Tx, orgID, memberID, name string, now Time) (NewKey, error) {
	token := newToken()
	k := APIKey{ID: NewID("key"), OrgID: orgID, MemberID: memberID, Name: name,
		Preview: tokenPreview(token), CreatedAt: now}
	return NewKey{APIKey: k, Token: token}, tx.CreateKey(k, HashToken(token))
}

// ListKeys lists an organization's keys (previews only).
func (s *Service) ListKeys(ctx context.Context, orgID string, pg Page) (List[APIKey], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]APIKey, int, error) { return tx.ListKeys(orgID, pg) })
}

// ownKeyOrAdmin lets a caller manage its member's own keys, or anyone's with members:write.
func ownKeyOrAdmin(c *Caller, k APIKey) error {
	if c == nil || k.MemberID == c.Member.ID || c.Perms.Has(Write("members")) {
		return nil
	}
	return Forbidden(Write("members"))
}

// RotateKey issues a new token for a key; the old one stops working at once.
// A nil caller is the operator at the CLI.
func (s *Service) RotateKey(ctx context.Context, c *Caller, orgID, id string) (NewKey, error) {
	var nk NewKey
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		k, err := tx.GetKey(orgID, id)
		if err != nil {
			return err
		}
		if err := ownKeyOrAdmin(c, k); err != nil {
			return err
		}
		token := newToken()
		k.Preview, k.RotatedAt = tokenPreview(token), s.now()
		nk = NewKey{APIKey: k, Token: token}
		return tx.ReplaceKeyHash(k, HashToken(token))
	})
	return nk, err
}

// DeleteKey revokes a key at once. A nil caller is the operator at the CLI.
func (s *Service) DeleteKey(ctx context.Context, c *Caller, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		k, err := tx.GetKey(orgID, id)
		if err != nil {
			return err
		}
		if err := ownKeyOrAdmin(c, k); err != nil {
			return err
		}
		return tx.DeleteKey(orgID, id)
	})
}
