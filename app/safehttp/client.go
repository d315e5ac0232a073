// Package safehttp is the SSRF-guarded HTTP client of every request the server makes to a
// tenant's URL: webhook deliveries, knowledge crawls and assistant tool callbacks. Which
// addresses are forbidden is the domain's rule (app/netguard); this package applies it at
// dial time, on the address actually connected (GoToSocial's sanitizer).
package safehttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"

	"wsapi/app"
	"wsapi/app/netguard"
)

// ErrForbiddenAddress is the dial error for an address outbound requests may not reach.
var ErrForbiddenAddress = errors.New("forbidden target address")

// Options configure the guarded client.
type Options struct {
	Timeout      time.Duration
	AllowPrivate bool
	// CAFile adds a CA (PEM) to the system roots, for endpoints with a private CA.
	CAFile string
	// Resolver replaces the system resolver (tests point names at chosen addresses).
	Resolver app.Resolver
	// FollowRedirects lets the client follow up to 5 redirects (crawls); each hop is still
	// checked at dial time. Webhook deliveries and tool callbacks never follow them.
	FollowRedirects bool
}

// NewClient is an outbound client that refuses forbidden addresses at dial time, on the
// address actually connected, so DNS rebinding cannot reach an internal service. It ignores
// proxies from the environment and follows no redirects unless asked (each hop checked).
func NewClient(o Options) (*http.Client, error) {
	dial, roots, err := Dialer(o)
	if err != nil {
		return nil, err
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	client := &http.Client{
		Transport:     transport,
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if o.FollowRedirects {
		client.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			return nil
		}
	}
	return client, nil
}

// Dialer is the guarded dialer alone, with the TLS roots (the system's and CAFile), for the
// protocols other than HTTP that reach a tenant's host: an email integration's IMAP mailbox.
func Dialer(o Options) (func(ctx context.Context, network, addr string) (net.Conn, error), *x509.CertPool, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, nil, fmt.Errorf("safehttp: ca_file: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("safehttp: ca_file %s holds no PEM certificate", o.CAFile)
		}
	}
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = guardControl
	}
	var resolver app.Resolver = net.DefaultResolver
	if o.Resolver != nil {
		resolver = o.Resolver
	}
	return resolvingDial(dialer, resolver), roots, nil
}

// guardControl runs on every socket just before connect, with the literal address.
func guardControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	if class := netguard.ForbiddenAddr(a); class != "" {
		return fmt.Errorf("%w: %s is not a public address (%s)", ErrForbiddenAddress, a, class)
	}
	return nil
}

// resolvingDial resolves with the given resolver and dials the addresses in turn, so an
// injected resolver decides what is dialled and the Control hook sees each address.
func resolvingDial(d *net.Dialer, r app.Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if netguard.IsLocalhostName(host) && d.Control != nil {
			return nil, fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
		}
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		var firstErr error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("no address for %s", host)
		}
		return nil, firstErr
	}
}
