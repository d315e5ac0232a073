package api

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"wsapi/app"
)

// ipLimiter is a token bucket per client IP: perMinute tokens, refilled evenly over a minute.
type ipLimiter struct {
	perMinute int
	clock     app.Clock
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(perMinute int, clock app.Clock) *ipLimiter {
	return &ipLimiter{perMinute: perMinute, clock: clock, buckets: map[string]*bucket{}}
}

// take spends one token of ip's bucket and answers what the RateLimit headers need.
func (l *ipLimiter) take(ip string) (ok bool, remaining int, reset, retryAfter time.Duration) {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[ip]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)}
		l.buckets[ip] = b
	}
	b.seen = now
	ok = b.lim.AllowN(now, 1)
	tokens := b.lim.TokensAt(now)
	perToken := time.Minute / time.Duration(l.perMinute)
	reset = time.Duration((float64(l.perMinute) - tokens) * float64(perToken))
	if !ok {
		retryAfter = time.Duration((1 - tokens) * float64(perToken))
	}
	return ok, int(math.Max(0, math.Floor(tokens))), reset, retryAfter
}

// sweep forgets buckets idle for over a minute (full again), so memory follows live clients.
func (l *ipLimiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < time.Minute {
		return
	}
	l.lastSweep = now
	for ip, b := range l.buckets {
		if now.Sub(b.seen) > time.Minute {
			delete(l.buckets, ip)
		}
	}
}

func ceilSeconds(d time.Duration) string {
	return strconv.Itoa(int(math.Ceil(d.Seconds())))
}

// clientIP is the peer address, or the nearest untrusted address of X-Forwarded-For when the
// peer is a trusted proxy.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(peer, trusted) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		addr, err := parseHop(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !isTrusted(addr, trusted) {
			return addr.String()
		}
	}
	return host
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHop reads one X-Forwarded-For entry: an address, or an address with a port as some
// proxies write it ("203.0.113.7:5123", "[2001:db8::1]:443").
func parseHop(s string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, nil
	}
	ap, err := netip.ParseAddrPort(s)
	return ap.Addr(), err
}
