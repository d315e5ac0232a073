package app

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"strings"

	"golang.org/x/net/idna"
)

// DKIM and domain verification statuses.
const (
	StatusPending  = "PENDING"
	StatusVerified = "VERIFIED"
	StatusFailed   = "FAILED"
)

// DNSRecord is a TXT record to publish.
type DNSRecord struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Domain is an organization's sending domain with its DKIM key.
type Domain struct {
	ID                 string      `json:"id"`
	Domain             string      `json:"domain"`
	VerificationRecord DNSRecord   `json:"verification_record"`
	DKIMStatus         string      `json:"dkim_status"`
	DKIMTokens         []DNSRecord `json:"dkim_tokens"`
	VerifyError        *string     `json:"verify_error"`
	VerifiedAt         Time        `json:"verified_at"`
	CreatedAt          Time        `json:"created_at"`
	UpdatedAt          Time        `json:"updated_at"`
	OrgID              string      `json:"-"`
	Selector           string      `json:"-"`
	PrivateKeyPEM      string      `json:"-"` // sealed at rest by the store
}

// DomainTx is the domains part of a transaction.
type DomainTx interface {
	CreateDomain(d Domain) error
	GetDomain(orgID, id string) (Domain, error)
	UpdateDomain(d Domain) error
	DeleteDomain(orgID, id string) error
	ListDomains(orgID string, p Page) ([]Domain, int, error)
	// DomainByName finds the organization's domain for an email's host.
	DomainByName(orgID, name string) (Domain, error)
	// VerifiedDomain finds the verified domain of that name in any organization.
	VerifiedDomain(name string) (Domain, error)
}

// TXTResolver looks up TXT records (dns.resolver, or a test server).
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// NormalizeDomain lowercases and IDNA-encodes a hostname, or answers "" when it is not one.
func NormalizeDomain(s string) string {
	s = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
	a, err := idna.Lookup.ToASCII(s)
	if err != nil || !strings.Contains(a, ".") || len(a) > 253 {
		return ""
	}
	labels := strings.Split(a, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 { // "a..b", ".a.b", or a label DNS cannot carry
			return ""
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" { // an IP address, not a host name
		return ""
	}
	return a
}

// dkimKey makes a domain's 2048-bit DKIM key, or takes one from DKIMKeys when set.
func (s *Service) dkimKey() (*rsa.PrivateKey, error) {
	if s.d.DKIMKeys != nil {
		return s.d.DKIMKeys()
	}
	return rsa.GenerateKey(rand.Reader, 2048)
}

// DomainInput adds a domain.
type DomainInput struct {
	Domain string `json:"domain"`
}

// CreateDomain adds a domain with a fresh 2048-bit RSA DKIM key and answers the records to
// publish: the DKIM key and an ownership token.
func (s *Service) CreateDomain(ctx context.Context, orgID string, in DomainInput) (Domain, error) {
	name := NormalizeDomain(in.Domain)
	if name == "" {
		return Domain{}, Invalid("domain", "must be a domain name such as mail.example.com")
	}
	key, err := s.dkimKey()
	if err != nil {
		return Domain{}, fmt.Errorf("app: dkim key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return Domain{}, fmt.Errorf("app: dkim key: %w", err)
	}
	now := s.now()
	d := Domain{ID: NewID("dom"), OrgID: orgID, Domain: name, DKIMStatus: StatusPending, CreatedAt: now, UpdatedAt: now,
		Selector:      "ws" + strings.ToLower(RandomBase62(8)),
		PrivateKeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))}
	d.DKIMTokens = []DNSRecord{{Name: d.Selector + "._domainkey." + name,
		Value: "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(pub)}}
	d.VerificationRecord = DNSRecord{Name: "_workspace-verification." + name, Value: "workspace-verification=" + RandomBase62(32)}
	err = s.d.Store.Write(ctx, func(tx Tx) error { return tx.CreateDomain(d) })
	return d, err
}

// GetDomain reads a domain.
func (s *Service) GetDomain(ctx context.Context, orgID, id string) (Domain, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Domain, error) { return tx.GetDomain(orgID, id) })
}

// ListDomains lists domains by name.
func (s *Service) ListDomains(ctx context.Context, orgID string, pg Page) (List[Domain], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Domain, int, error) { return tx.ListDomains(orgID, pg) })
}

// DeleteDomain removes a domain; identities on it go with it.
func (s *Service) DeleteDomain(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteDomain(orgID, id) })
}

// VerifyDomain looks the records up and sets VERIFIED when both the ownership token and the
// DKIM key are published as given, FAILED otherwise with the reason.
func (s *Service) VerifyDomain(ctx context.Context, orgID, id string) (Domain, error) {
	d, err := s.GetDomain(ctx, orgID, id)
	if err != nil {
		return d, err
	}
	why := s.checkRecords(ctx, d)
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if d, err = tx.GetDomain(orgID, id); err != nil {
			return err
		}
		now := s.now()
		d.DKIMStatus, d.VerifyError, d.UpdatedAt = StatusVerified, nil, now
		if why != "" {
			d.DKIMStatus, d.VerifyError = StatusFailed, &why
		} else if d.VerifiedAt.IsZero() {
			d.VerifiedAt = now
		}
		return tx.UpdateDomain(d)
	})
	return d, err
}

func (s *Service) checkRecords(ctx context.Context, d Domain) string {
	for _, rec := range append([]DNSRecord{d.VerificationRecord}, d.DKIMTokens...) {
		values, err := s.d.DNS.LookupTXT(ctx, rec.Name)
		if err != nil {
			return "TXT lookup of " + rec.Name + " failed: " + err.Error()
		}
		if !hasTXT(values, rec.Value) {
			return "TXT record " + rec.Name + " does not hold the expected value"
		}
	}
	return ""
}

// hasTXT compares ignoring the spaces DNS providers add or drop between tag=value pairs.
func hasTXT(values []string, want string) bool {
	squash := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), " ", "") }
	for _, v := range values {
		if squash(v) == squash(want) {
			return true
		}
	}
	return false
}

// PublicOrg is the spec's Organization public information.
type PublicOrg struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Verified    bool        `json:"verified"`
	LogoURL     string      `json:"logo_url"`
	Plan        string      `json:"plan"`
	Config      OrgConfig   `json:"config"`
	Features    OrgFeatures `json:"features"`
	ParentOrgID *string     `json:"parent_org_id,omitempty"`
}

// OrgByDomain answers the public information of the organization owning a verified domain;
// an unknown and an unverified domain both read as not_found.
func (s *Service) OrgByDomain(ctx context.Context, hostname string) (p PublicOrg, err error) {
	name := NormalizeDomain(hostname)
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		d, err := tx.VerifiedDomain(name)
		if err != nil {
			return err
		}
		o, err := tx.GetOrg(d.OrgID)
		p = PublicOrg{ID: o.ID, Name: o.Name, Verified: true, LogoURL: o.LogoURL, Plan: o.Plan, Config: o.Config,
			Features: o.Features, ParentOrgID: o.ParentOrgID}
		return err
	})
	if err != nil && IsNotFound(err) {
		return PublicOrg{}, NotFound("domain")
	}
	return p, err
}
