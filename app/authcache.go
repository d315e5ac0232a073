package app

import (
	"context"

	"wsapi/app/vcache"
)

// authCacheSize bounds the principals kept: one per token in use, a few hundred bytes each.
const authCacheSize = 10000

// authCache keeps the principal of each token recently seen, by the SHA-256 of the token,
// under the store's authentication version (Store.AuthVersion). Every request authenticates;
// reading key, member and role again each time was a quarter of a simple read's CPU. A
// triggers-kept version (sqlite/migrations/00019_auth_version.sql) grows with every change to
// a key, a member or a role, whoever makes it (this process, a CLI command, a cascade), so a
// cached principal is used only while nothing it was read from has changed: a rotated or
// deleted key, a deleted member or a changed role takes effect on the very next request.
// Unknown tokens are not kept (they always read the store).
type authCache struct {
	principals *vcache.Cache[string, Principal]
}

// CacheAuth keeps recent authentications in memory (on by default: NewService turns it on).
func (s *Service) CacheAuth(on bool) {
	s.auth = nil
	if on {
		s.auth = &authCache{principals: vcache.New[string, Principal](authCacheSize)}
	}
}

// authenticate reads the principal of a token hash and the stored hash, from the cache when
// nothing has changed since it was kept. The Principal's Perms is shared: read only.
func (s *Service) authenticate(ctx context.Context, hash []byte) (p Principal, stored []byte, err error) {
	if s.auth == nil {
		err = s.d.Store.Read(ctx, func(tx Tx) error {
			p, stored, err = tx.Authenticate(hash)
			return err
		})
		return p, stored, err
	}
	key := string(hash)
	version, err := s.d.Store.AuthVersion(ctx)
	if err != nil {
		return p, nil, err
	}
	if p, ok := s.auth.principals.Get(key, version); ok {
		return p, hash, nil // kept only when the store held this very hash
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		// The version and the principal come from one snapshot, so the entry is never
		// newer than its version says.
		if version, err = tx.AuthVersion(); err != nil {
			return err
		}
		p, stored, err = tx.Authenticate(hash)
		return err
	})
	if err == nil {
		s.auth.principals.Put(key, version, p, 1)
	}
	return p, stored, err
}

// AuthVersion grows with every change to a key, a member or a role, and with the end of a
// widget visitor's session or widget, by any process: open event streams watch it to end those a change revoked (app/api/streamguard.go).
func (s *Service) AuthVersion(ctx context.Context) (int64, error) {
	return s.d.Store.AuthVersion(ctx)
}
