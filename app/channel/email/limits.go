package email

import (
	"net"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"wsapi/app"
)

// ipLimits holds the listener's budgets per client address: connections open at once, and
// mails a minute (a token bucket refilled evenly). A budget of 0 is no limit.
type ipLimits struct {
	maxConns int
	perMin   int
	clock    app.Clock

	mu    sync.Mutex
	conns map[string]int
	rates map[string]*rate.Limiter
}

// maxTracked bounds the addresses whose rate is kept; past it the idle ones are forgotten
// (a full bucket is the same as none).
const maxTracked = 10000

func newIPLimits(maxConns, perMin int, clock app.Clock) *ipLimits {
	if clock == nil {
		clock = app.SystemClock{}
	}
	return &ipLimits{maxConns: maxConns, perMin: perMin, clock: clock, conns: map[string]int{}, rates: map[string]*rate.Limiter{}}
}

// open counts a connection from ip, refusing it past the limit.
func (l *ipLimits) open(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxConns > 0 && l.conns[ip] >= l.maxConns {
		return false
	}
	l.conns[ip]++
	return true
}

func (l *ipLimits) close(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conns[ip]--; l.conns[ip] <= 0 {
		delete(l.conns, ip)
	}
}

// allowMessage takes one mail from ip's budget.
func (l *ipLimits) allowMessage(ip net.IP) bool {
	if l.perMin <= 0 {
		return true
	}
	key := ip.String()
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.rates[key]
	if lim == nil {
		if len(l.rates) >= maxTracked {
			l.forgetIdle(now)
		}
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMin)), l.perMin)
		l.rates[key] = lim
	}
	return lim.AllowN(now, 1)
}

func (l *ipLimits) forgetIdle(now time.Time) {
	for k, lim := range l.rates {
		if lim.TokensAt(now) >= float64(l.perMin) {
			delete(l.rates, k)
		}
	}
}

// limitedListener refuses a connection past its address's limit with 421 before any
// session starts.
type limitedListener struct {
	net.Listener
	limits *ipLimits

	mu   sync.Mutex
	open map[*countedConn]bool
}

// closeAll ends every connection still open (a shutdown past its bound).
func (l *limitedListener) closeAll() {
	l.mu.Lock()
	conns := make([]*countedConn, 0, len(l.open))
	for c := range l.open {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := remoteIP(c.RemoteAddr()).String()
		if l.limits.open(ip) {
			cc := &countedConn{Conn: c}
			cc.release = func() {
				l.limits.close(ip)
				l.mu.Lock()
				delete(l.open, cc)
				l.mu.Unlock()
			}
			l.mu.Lock()
			if l.open == nil {
				l.open = map[*countedConn]bool{}
			}
			l.open[cc] = true
			l.mu.Unlock()
			return cc, nil
		}
		c.SetWriteDeadline(time.Now().Add(time.Second))
		c.Write([]byte("421 4.7.0 too many connections from your address\r\n"))
		c.Close()
	}
}

// countedConn gives its address's slot back once when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
