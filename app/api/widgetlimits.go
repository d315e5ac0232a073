package api

import (
	"sync"
	"time"

	"wsapi/app"
)

// WidgetLimits bound what the widget's public routes let visitors do (channels.widget.* in
// the configuration, docs/channels.md): new sessions per IP, messages per session, per IP and
// per integration (each a minute's budget, refilled evenly), and open streams per IP and per
// integration. Beyond a budget the answer is 429 with Retry-After. 0 turns a limit off.
type WidgetLimits struct {
	SessionsPerMinutePerIP          int
	MessagesPerMinutePerSession     int
	MessagesPerMinutePerIP          int
	MessagesPerMinutePerIntegration int
	StreamsPerIP                    int
	StreamsPerIntegration           int
}

// visitorLimits holds the buckets and the open-stream counts of WidgetLimits.
type visitorLimits struct {
	cfg                                  WidgetLimits
	trusted                              func(*Request) string
	sessions, perSession, perIP, perWidg *ipLimiter
	mu                                   sync.Mutex
	streamsIP, streamsWidg               map[string]int
}

func newVisitorLimits(cfg WidgetLimits, clock app.Clock, ip func(*Request) string) *visitorLimits {
	mk := func(n int) *ipLimiter {
		if n <= 0 {
			return nil
		}
		return newIPLimiter(n, clock)
	}
	return &visitorLimits{cfg: cfg, trusted: ip, sessions: mk(cfg.SessionsPerMinutePerIP),
		perSession: mk(cfg.MessagesPerMinutePerSession), perIP: mk(cfg.MessagesPerMinutePerIP),
		perWidg: mk(cfg.MessagesPerMinutePerIntegration), streamsIP: map[string]int{}, streamsWidg: map[string]int{}}
}

func limited(what string, retry time.Duration) error {
	return &app.Error{Code: codeRateLimited, Message: "too many " + what + "; retry after " + ceilSeconds(retry) + " s"}
}

// take spends a token of each bucket in turn; the first one empty refuses.
func take(rq *Request, what string, checks ...check) error {
	for _, c := range checks {
		if c.l == nil {
			continue
		}
		if ok, _, _, retry := c.l.take(c.key); !ok {
			rq.W.Header().Set("Retry-After", ceilSeconds(retry))
			return limited(what, retry)
		}
	}
	return nil
}

type check = struct {
	l   *ipLimiter
	key string
}

// session spends a new session of the client's IP.
func (v *visitorLimits) session(rq *Request) error {
	return take(rq, "new chat sessions from this address", check{v.sessions, v.trusted(rq)})
}

// message spends a message of the session, of its IP and of its widget.
func (v *visitorLimits) message(rq *Request, vis app.Visitor) error {
	return take(rq, "messages", check{v.perSession, vis.Session.ID}, check{v.perIP, v.trusted(rq)},
		check{v.perWidg, vis.Deployment.ID})
}

// stream counts an open stream of the IP and the widget until release; over either cap it
// is refused (429), never held open.
func (v *visitorLimits) stream(rq *Request, vis app.Visitor) (release func(), err error) {
	ip, widg := v.trusted(rq), vis.Deployment.ID
	v.mu.Lock()
	defer v.mu.Unlock()
	if (v.cfg.StreamsPerIP > 0 && v.streamsIP[ip] >= v.cfg.StreamsPerIP) ||
		(v.cfg.StreamsPerIntegration > 0 && v.streamsWidg[widg] >= v.cfg.StreamsPerIntegration) {
		rq.W.Header().Set("Retry-After", "10")
		return nil, limited("open chat streams", 10*time.Second)
	}
	v.streamsIP[ip]++
	v.streamsWidg[widg]++
	return func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		drop(v.streamsIP, ip)
		drop(v.streamsWidg, widg)
	}, nil
}

// drop counts one out of key, forgetting keys at zero.
func drop(m map[string]int, key string) {
	if m[key]--; m[key] <= 0 {
		delete(m, key)
	}
}
