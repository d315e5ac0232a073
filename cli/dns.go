package cli

import (
	"context"
	"errors"
	"net"
)

// configuredDNS looks TXT records up on the server of dns.resolver. Go's resolver names the
// system's server (from resolv.conf) in its errors even when Dial goes elsewhere, so a failed
// domain check would send the operator to the wrong server: errors name the one asked.
type configuredDNS struct {
	server   string
	resolver *net.Resolver
}

func newConfiguredDNS(server string) *configuredDNS {
	return &configuredDNS{server: server, resolver: &net.Resolver{PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}}}
}

// LookupTXT implements app.TXTResolver.
func (c *configuredDNS) LookupTXT(ctx context.Context, name string) ([]string, error) {
	txt, err := c.resolver.LookupTXT(ctx, name)
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok {
		named := *dnsErr
		named.Server = c.server
		return txt, &named
	}
	return txt, err
}
