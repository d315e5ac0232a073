package api

import "wsapi/app"

// RouteInfo describes one registered route without its handler: what the OpenAPI document
// and its test compare against.
type RouteInfo struct {
	Method     string
	Path       string
	Permission app.Permission // empty on public routes
	Public     bool           // no credential
	Body       bool           // takes a request body
}

// Routes lists every route of the route table, in its order. The handlers are method values
// on a throwaway Server, or builders over its (nil) service's method values, and are never
// called, so no service or database is needed.
func Routes() []RouteInfo {
	s := &Server{}
	rs := s.routes()
	out := make([]RouteInfo, 0, len(rs))
	for _, rt := range rs {
		out = append(out, RouteInfo{Method: rt.method, Path: rt.path, Permission: rt.perm, Public: rt.public, Body: rt.body})
	}
	return out
}

// MetricsRoute is GET /metrics on the API listener: answered in front of the route table
// (metricsEndpoint) when metrics.token is set, with that token instead of an API key. The
// document describes it like any route.
var MetricsRoute = RouteInfo{Method: "GET", Path: "/metrics", Permission: "metrics"}
