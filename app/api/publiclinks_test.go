package api

import (
	"net/http"
	"strings"
	"testing"
)

// TestLinksMatchRoutes: every link the domain hands out lands on a route of the table, with
// the method people's clients use, so a changed path cannot leave the links behind.
func TestLinksMatchRoutes(t *testing.T) {
	l := NewLinks("https://api.example.com/")
	links := map[string]string{
		l.Unsubscribe("tok"):          http.MethodGet,
		l.TrackOpen("tok"):            http.MethodGet,
		l.TrackClick("tok"):           http.MethodGet,
		l.ChatFile("org", "ch", "fl"): http.MethodGet,
	}
	routes := (&Server{}).routes()
	for link, method := range links {
		path, ok := strings.CutPrefix(link, "https://api.example.com/")
		if !ok {
			t.Errorf("%s: not under the public URL", link)
			continue
		}
		if !routeMatches(routes, method, splitPath(path)) {
			t.Errorf("%s %s: no route of the table serves it", method, link)
		}
	}
}

// routeMatches tells whether a route of the table has method and a path of segments' shape.
func routeMatches(routes []*route, method string, segments []string) bool {
	for _, rt := range routes {
		pattern := splitPath(rt.path)
		if rt.method != method || len(pattern) != len(segments) {
			continue
		}
		same := true
		for i, p := range pattern {
			same = same && (isParam(p) || p == segments[i])
		}
		if same {
			return true
		}
	}
	return false
}
