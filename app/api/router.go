package api

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// httprouter cannot hold a static segment and a parameter at the same place
// (/webhooks/events beside /webhooks/{id}). mount therefore registers every place where some
// route has a parameter as a positional parameter, and a dispatcher behind each registered
// pattern picks the route whose static segments match, the most specific first.

type candidate struct {
	route    *route
	segments []string // the route's own path, split; "{name}" marks a parameter
	statics  int
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// routerPatterns converts each route's path to its httprouter pattern.
func routerPatterns(routes []*route) map[*route]string {
	segs := map[*route][]string{}
	for _, r := range routes {
		segs[r] = splitPath(r.path)
	}
	converted := map[*route][]string{}
	for depth := 0; ; depth++ {
		paramAt := map[string]bool{} // method + converted prefix -> some route has a parameter here
		more := false
		for _, r := range routes {
			if depth < len(segs[r]) {
				more = true
				if isParam(segs[r][depth]) {
					paramAt[r.method+" "+strings.Join(converted[r], "/")] = true
				}
			}
		}
		if !more {
			break
		}
		for _, r := range routes {
			if depth >= len(segs[r]) {
				continue
			}
			seg := segs[r][depth]
			if paramAt[r.method+" "+strings.Join(converted[r], "/")] {
				seg = ":p" + strconv.Itoa(depth)
			}
			converted[r] = append(converted[r], seg)
		}
	}
	out := map[*route]string{}
	for _, r := range routes {
		out[r] = "/" + strings.Join(converted[r], "/")
	}
	return out
}

// mount registers routes on a new router, with handle serving the chosen route.
func mount(routes []*route, handle func(*route, http.ResponseWriter, *http.Request, map[string]string)) *httprouter.Router {
	patterns := routerPatterns(routes)
	groups := map[string][]candidate{}
	var keys []string
	for _, r := range routes {
		key := r.method + " " + patterns[r]
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		c := candidate{route: r, segments: splitPath(r.path)}
		for _, s := range c.segments {
			if !isParam(s) {
				c.statics++
			}
		}
		groups[key] = append(groups[key], c)
	}
	router := httprouter.New()
	for _, key := range keys {
		cands := groups[key]
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].statics > cands[j].statics })
		method, pattern, _ := strings.Cut(key, " ")
		router.Handle(method, pattern, func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
			segments := splitPath(req.URL.Path)
			for _, c := range cands {
				if params, ok := c.match(segments); ok {
					handle(c.route, w, req, params)
					return
				}
			}
			writeError(w, req, errNoRoute)
		})
	}
	return router
}

func (c candidate) match(segments []string) (map[string]string, bool) {
	if len(segments) != len(c.segments) {
		return nil, false
	}
	params := map[string]string{}
	for i, s := range c.segments {
		if isParam(s) {
			params[s[1:len(s)-1]] = segments[i]
		} else if s != segments[i] {
			return nil, false
		}
	}
	return params, true
}
