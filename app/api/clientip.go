package api

import (
	"net/http"
	"net/netip"
)

// ClientIP is the client address of a request by the API's rule (X-Forwarded-For believed
// only from trusted proxies), for the web app's sign-in throttle.
func ClientIP(r *http.Request, trusted []netip.Prefix) string { return clientIP(r, trusted) }
