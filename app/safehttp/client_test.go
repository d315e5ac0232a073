package safehttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestGuardRefusesPrivateAddresses: a loopback server is out of reach by address and by the
// name localhost unless private targets are allowed; a redirect is not followed unless asked.
func TestGuardRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer target.Close()
	port := target.URL[strings.LastIndex(target.URL, ":"):]
	guarded, err := NewClient(Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{target.URL, "http://localhost" + port} {
		if _, err := guarded.Get(u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("GET %s: %v, want ErrForbiddenAddress", u, err)
		}
	}
	open, err := NewClient(Options{Timeout: 2 * time.Second, AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := open.Get(target.URL + "/hop"); err != nil || res.StatusCode != http.StatusFound {
		t.Fatalf("allowed, no redirects: %v %v", res, err)
	}
	follow, err := NewClient(Options{Timeout: 2 * time.Second, AllowPrivate: true, FollowRedirects: true})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := follow.Get(target.URL + "/hop"); err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("allowed, following redirects: %v %v", res, err)
	}
}

// TestBadCAFile: a CA file that holds no certificate is refused when the client is made.
func TestBadCAFile(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/ca.pem"
	if _, err := NewClient(Options{CAFile: path}); err == nil {
		t.Fatal("a missing CA file was accepted")
	}
}
