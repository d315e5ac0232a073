package apitest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// DNSServer is a real local DNS server (UDP) answering TXT records a test sets; point
// dns.resolver at Addr.
type DNSServer struct {
	Addr string
	mu   sync.Mutex
	txt  map[string][]string
}

// NewDNSServer starts a server on 127.0.0.1.
func NewDNSServer(t testing.TB) *DNSServer {
	t.Helper()
	s := &DNSServer{txt: map[string][]string{}}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("apitest: dns listen: %v", err)
	}
	s.Addr = pc.LocalAddr().String()
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.serve)}
	go srv.ActivateAndServe()
	t.Cleanup(func() { srv.Shutdown() })
	return s
}

// SetTXT publishes TXT values for a name (replacing earlier ones).
func (s *DNSServer) SetTXT(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txt[dns.Fqdn(strings.ToLower(name))] = values
}

// TXT answers the values of a name, as LookupTXT would.
func (s *DNSServer) TXT(name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.txt[dns.Fqdn(strings.ToLower(name))]
}

func (s *DNSServer) serve(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	for _, q := range req.Question {
		if q.Qtype != dns.TypeTXT {
			continue
		}
		for _, v := range s.TXT(q.Name) {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60},
				Txt: splitTXT(v)})
		}
	}
	if len(m.Answer) == 0 {
		m.Rcode = dns.RcodeNameError
	}
	w.WriteMsg(m)
}

// splitTXT cuts a long value into the 255-byte strings a TXT record holds.
func splitTXT(v string) []string {
	var out []string
	for len(v) > 255 {
		out, v = append(out, v[:255]), v[255:]
	}
	return append(out, v)
}
