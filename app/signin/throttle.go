package signin

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Sign-in attempts are limited per account (the email typed) and per client IP, each a
// token bucket: an attempt spends a token of both, whatever its outcome. An account takes
// AccountBurst attempts at once, then one every AccountEvery; an IP (a whole office behind
// one address) IPBurst, then one every IPEvery. So a guesser gets about 60 tries an hour
// at one account, and a spray across accounts from one address about 1,200.
const (
	AccountBurst = 5
	AccountEvery = time.Minute
	IPBurst      = 30
	IPEvery      = 3 * time.Second
	// maxBuckets bounds the memory of the throttle; past it, buckets that are full again
	// (idle long enough to forget) are dropped, and if none is, the map starts over.
	maxBuckets = 20000
)

// throttle keeps the buckets, on the service's clock so tests move time.
type throttle struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newThrottle() *throttle { return &throttle{buckets: map[string]*rate.Limiter{}} }

// allow spends one token of the account's and of the IP's bucket; when either is empty it
// spends nothing and answers how long until one attempt is possible.
func (t *throttle) allow(now time.Time, account, ip string) (bool, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	acc := t.bucket(now, "a:"+account, rate.Every(AccountEvery), AccountBurst)
	addr := t.bucket(now, "i:"+ip, rate.Every(IPEvery), IPBurst)
	ra, rb := acc.ReserveN(now, 1), addr.ReserveN(now, 1)
	wait := max(ra.DelayFrom(now), rb.DelayFrom(now))
	if wait > 0 {
		ra.CancelAt(now)
		rb.CancelAt(now)
		return false, wait
	}
	return true, 0
}

func (t *throttle) bucket(now time.Time, key string, every rate.Limit, burst int) *rate.Limiter {
	if b := t.buckets[key]; b != nil {
		return b
	}
	if len(t.buckets) >= maxBuckets {
		t.forgetFull(now)
	}
	b := rate.NewLimiter(every, burst)
	t.buckets[key] = b
	return b
}

// forgetFull drops the buckets that have refilled: forgetting them changes nothing.
func (t *throttle) forgetFull(now time.Time) {
	for k, b := range t.buckets {
		if math.Floor(b.TokensAt(now)) >= float64(b.Burst()) {
			delete(t.buckets, k)
		}
	}
	if len(t.buckets) >= maxBuckets {
		t.buckets = map[string]*rate.Limiter{}
	}
}
