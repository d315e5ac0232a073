package email

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"time"

	"blitiri.com.ar/go/spf"
	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-msgauth/dmarc"
	"golang.org/x/net/publicsuffix"
)

// Auth is what DKIM, SPF and DMARC said of a mail, as recorded in the message's metadata.
// Results are RFC 8601 words: pass, fail, softfail, neutral, none, temperror, permerror.
type Auth struct {
	DKIM        string   `json:"dkim"`
	DKIMDomains []string `json:"dkim_domains"` // the domains of the valid signatures
	SPF         string   `json:"spf"`
	SPFDomain   string   `json:"spf_domain"`
	DMARC       string   `json:"dmarc"`
	DMARCPolicy string   `json:"dmarc_policy"` // the From domain's p=, "" without a record
}

// Authenticator checks mail against DNS through one resolver (dns.resolver in tests and
// deployments that name one; the system's otherwise).
type Authenticator struct {
	DNS     *net.Resolver
	Timeout time.Duration // per check; 0: 10 s
}

// Check evaluates a raw mail: DKIM always, SPF when the connecting address is known (SMTP;
// a mail fetched over IMAP has none, its SPF is "none"), DMARC from both for the From domain.
func (a Authenticator) Check(ctx context.Context, raw []byte, env Envelope, fromDomain string) Auth {
	timeout := a.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res Auth
	res.DKIM, res.DKIMDomains = a.dkim(ctx, raw)
	res.SPF, res.SPFDomain = a.spf(ctx, env)
	res.DMARC, res.DMARCPolicy = a.dmarc(ctx, fromDomain, res)
	return res
}

func (a Authenticator) resolver() *net.Resolver {
	if a.DNS != nil {
		return a.DNS
	}
	return net.DefaultResolver
}

func (a Authenticator) lookupTXT(ctx context.Context) func(string) ([]string, error) {
	return func(name string) ([]string, error) { return a.resolver().LookupTXT(ctx, name) }
}

func (a Authenticator) dkim(ctx context.Context, raw []byte) (string, []string) {
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: a.lookupTXT(ctx), MaxVerifications: 5})
	if err != nil && len(vs) == 0 {
		return "permerror", nil
	}
	if len(vs) == 0 {
		return "none", nil
	}
	result, domains := "fail", []string{}
	for _, v := range vs {
		switch {
		case v.Err == nil:
			result, domains = "pass", append(domains, strings.ToLower(v.Domain))
		case dkim.IsTempFail(v.Err) && result == "fail":
			result = "temperror"
		}
	}
	return result, domains
}

func (a Authenticator) spf(ctx context.Context, env Envelope) (string, string) {
	if env.RemoteIP == nil {
		return "none", ""
	}
	sender := env.MailFrom
	if sender == "" { // a null sender's SPF is its HELO's (RFC 7208 2.4)
		sender = "postmaster@" + env.HELO
	}
	_, domain, _ := strings.Cut(sender, "@")
	r, _ := spf.CheckHostWithSender(env.RemoteIP, env.HELO, sender, spf.WithResolver(a.resolver()), spf.WithContext(ctx))
	return string(r), strings.ToLower(domain)
}

// dmarc evaluates RFC 7489 for the From domain: pass when a valid DKIM signature or an SPF
// pass is aligned with it (relaxed: the same organizational domain; strict: the same name).
func (a Authenticator) dmarc(ctx context.Context, from string, res Auth) (string, string) {
	from = strings.ToLower(strings.TrimSuffix(from, "."))
	if from == "" {
		return "none", ""
	}
	rec, err := dmarc.LookupWithOptions(from, &dmarc.LookupOptions{LookupTXT: a.lookupTXT(ctx)})
	if org := orgDomain(from); errors.Is(err, dmarc.ErrNoPolicy) && org != from {
		rec, err = dmarc.LookupWithOptions(org, &dmarc.LookupOptions{LookupTXT: a.lookupTXT(ctx)})
		if err == nil && rec.SubdomainPolicy != "" {
			rec.Policy = rec.SubdomainPolicy
		}
	}
	switch {
	case errors.Is(err, dmarc.ErrNoPolicy) || notFound(err):
		return "none", ""
	case dmarc.IsTempFail(err):
		return "temperror", ""
	case err != nil:
		return "permerror", ""
	}
	for _, d := range res.DKIMDomains {
		if aligned(d, from, rec.DKIMAlignment) {
			return "pass", string(rec.Policy)
		}
	}
	if res.SPF == "pass" && aligned(res.SPFDomain, from, rec.SPFAlignment) {
		return "pass", string(rec.Policy)
	}
	return "fail", string(rec.Policy)
}

func notFound(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

func aligned(d, from string, mode dmarc.AlignmentMode) bool {
	if d == "" {
		return false
	}
	if mode == dmarc.AlignmentStrict {
		return d == from
	}
	return orgDomain(d) == orgDomain(from)
}

func orgDomain(d string) string {
	if org, err := publicsuffix.EffectiveTLDPlusOne(d); err == nil {
		return org
	}
	return d
}
