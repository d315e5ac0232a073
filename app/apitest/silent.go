package apitest

import (
	"net"
	"sync"
	"testing"
)

// Silent is a local TCP server that accepts connections and never answers: the endpoint
// that hangs (not even a TLS handshake) until the client gives up or the test ends.
type Silent struct {
	URL   string // https://127.0.0.1:port/hook
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

// NewSilent starts a silent server on 127.0.0.1.
func NewSilent(t testing.TB) *Silent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("apitest: silent listen: %v", err)
	}
	s := &Silent{URL: "https://" + ln.Addr().String() + "/hook", ln: ln}
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *Silent) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
	}
}

// Accepted counts the connections taken so far.
func (s *Silent) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

func (s *Silent) close() {
	s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}
