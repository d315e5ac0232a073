package apitest

import (
	"crypto/rand"
	"crypto/rsa"
	"sync"
)

// dkimPool holds the DKIM keys the environments of one test binary share. A 2048-bit RSA key
// takes about a second to make under -race, and every e-mail test verifies a domain or two:
// made once per binary, they cost that second once instead of in every test.
var dkimPool struct {
	mu   sync.Mutex
	keys []*rsa.PrivateKey
}

// DKIMKeys answers a key source for one environment's service (app.Service.DKIMKeys): its
// n-th domain gets the pool's n-th key, so the domains of one environment never share a key.
// The keys are the same size as in production.
func DKIMKeys() func() (*rsa.PrivateKey, error) {
	var mu sync.Mutex
	next := 0
	return func() (*rsa.PrivateKey, error) {
		mu.Lock()
		n := next
		next++
		mu.Unlock()
		return pooledKey(n)
	}
}

// pooledKey answers the pool's n-th key, making the missing ones first.
func pooledKey(n int) (*rsa.PrivateKey, error) {
	dkimPool.mu.Lock()
	defer dkimPool.mu.Unlock()
	for len(dkimPool.keys) <= n {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		dkimPool.keys = append(dkimPool.keys, k)
	}
	return dkimPool.keys[n], nil
}
