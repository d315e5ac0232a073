package apitest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
)

// FakeDNS answers chosen names with chosen addresses, a list per lookup so a test can make
// a name change its answer between checks (DNS rebinding). Other names go to the system.
type FakeDNS struct {
	mu      sync.Mutex
	answers map[string][][]netip.Addr
}

// Resolver is the harness's resolver; every Env uses it. Names under .test are free to set.
var Resolver = &FakeDNS{answers: map[string][][]netip.Addr{}}

// Set queues answers for host: the first lookup gets the first list, and so on; the last
// list repeats.
func (f *FakeDNS) Set(host string, answers ...[]netip.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[strings.ToLower(host)] = answers
}

// LookupNetIP implements app.Resolver.
func (f *FakeDNS) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	queue, ok := f.answers[strings.ToLower(host)]
	if ok && len(queue) > 1 {
		f.answers[strings.ToLower(host)] = queue[1:]
	}
	f.mu.Unlock()
	if !ok {
		return net.DefaultResolver.LookupNetIP(ctx, network, host)
	}
	if len(queue) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return queue[0], nil
}

// Addrs parses addresses for Set.
func Addrs(s ...string) []netip.Addr {
	out := make([]netip.Addr, len(s))
	for i, a := range s {
		out[i] = netip.MustParseAddr(a)
	}
	return out
}
