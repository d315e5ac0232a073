package mail_test

import (
	"bytes"
	"context"
	"encoding/pem"
	"os"
	"regexp"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// domainEnv is a server whose domain checks go to a local DNS server.
func domainEnv(t *testing.T) (*apitest.Env, *apitest.DNSServer) {
	dnsSrv := apitest.NewDNSServer(t)
	e := apitest.New(t, func(c *cli.Config) { c.DNS.Resolver = dnsSrv.Addr })
	return e, dnsSrv
}

func publish(dnsSrv *apitest.DNSServer, d app.Domain) {
	for _, rec := range append([]app.DNSRecord{d.VerificationRecord}, d.DKIMTokens...) {
		dnsSrv.SetTXT(rec.Name, rec.Value)
	}
}

func TestDomainCreateAnswersTheRecordsToPublish(t *testing.T) {
	t.Parallel()
	e, _ := domainEnv(t)
	m := e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "Mail.Example.TEST."}).Expect(201).Map()
	// The same domain again, in any spelling: the UNIQUE constraint decides, and names the field.
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "mail.example.test"}).ExpectError(409, "conflict", "domain")
	if m["domain"] != "mail.example.test" || m["dkim_status"] != "PENDING" || m["verified_at"] != nil || m["verify_error"] != nil {
		t.Fatalf("domain %v", m)
	}
	if !strings.HasPrefix(str(m, "id"), "dom_") || str(m, "created_at") == "" || str(m, "updated_at") == "" {
		t.Fatalf("domain %v", m)
	}
	tokens, _ := m["dkim_tokens"].([]any)
	if len(tokens) != 1 {
		t.Fatalf("dkim_tokens %v", m["dkim_tokens"])
	}
	tok := tokens[0].(map[string]any)
	if !regexp.MustCompile(`^[a-z0-9]+\._domainkey\.mail\.example\.test$`).MatchString(str(tok, "name")) ||
		!regexp.MustCompile(`^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$`).MatchString(str(tok, "value")) {
		t.Fatalf("dkim token %v", tok)
	}
	ver, _ := m["verification_record"].(map[string]any)
	if str(ver, "name") != "_workspace-verification.mail.example.test" || str(ver, "value") == "" {
		t.Fatalf("verification_record %v", m["verification_record"])
	}
	var got map[string]any
	e.Do("GET", "/orgs/c/domains/"+str(m, "id"), e.AdminKey, nil).Expect(200).JSON(&got)
	if str(got, "dkim_status") != "PENDING" || len(got["dkim_tokens"].([]any)) != 1 {
		t.Fatalf("get %v", got)
	}
	for _, bad := range []string{"", "localhost", "not a domain", "a..b", ".a.test", strings.Repeat("a", 64) + ".test", "1.2.3.4", strings.Repeat("a", 250) + ".test", "exa_mple@x.test"} {
		e.DoInvalid("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": bad}).ExpectError(400, "invalid_argument", "domain")
	}
	e.DoInvalid("POST", "/orgs/c/domains", e.AdminKey, map[string]any{"domain": "x.test", "selector": "s"}).
		ExpectError(400, "invalid_argument", "selector")
}

func TestDomainVerifyOutcomes(t *testing.T) {
	t.Parallel()
	e, dnsSrv := domainEnv(t)
	var ok, wrong, missing app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "ok.example.test"}).Expect(201).JSON(&ok)
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "wrong.example.test"}).Expect(201).JSON(&wrong)
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "missing.example.test"}).Expect(201).JSON(&missing)
	publish(dnsSrv, ok)
	dnsSrv.SetTXT(wrong.VerificationRecord.Name, wrong.VerificationRecord.Value)
	dnsSrv.SetTXT(wrong.DKIMTokens[0].Name, strings.Replace(wrong.DKIMTokens[0].Value, "p=M", "p=X", 1))
	dnsSrv.SetTXT(missing.VerificationRecord.Name, missing.VerificationRecord.Value) // no DKIM record

	e.Clock.Advance(5e9)
	m := e.Do("POST", "/orgs/c/domains/"+ok.ID+"/verify", e.AdminKey, nil).Expect(200).Map()
	if m["dkim_status"] != "VERIFIED" || str(m, "verified_at") != app.At(e.Clock.Now()).String() || m["verify_error"] != nil {
		t.Fatalf("verified domain %v", m)
	}
	for _, d := range []app.Domain{wrong, missing} {
		m := e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200).Map()
		if m["dkim_status"] != "FAILED" || m["verified_at"] != nil || !strings.Contains(str(m, "verify_error"), d.DKIMTokens[0].Name) {
			t.Fatalf("failed domain %v", m)
		}
	}
	// DNS providers split long values and drop or add spaces: still the same record.
	dnsSrv.SetTXT(wrong.DKIMTokens[0].Name, strings.ReplaceAll(wrong.DKIMTokens[0].Value, "; ", ";"))
	m = e.Do("POST", "/orgs/c/domains/"+wrong.ID+"/verify", e.AdminKey, nil).Expect(200).Map()
	if m["dkim_status"] != "VERIFIED" || m["verify_error"] != nil || m["verified_at"] == nil {
		t.Fatalf("re-verified domain %v", m)
	}
	// Another organization's domain is not found, for reads and for verify.
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("GET", "/orgs/c/domains/"+ok.ID, otherKey, nil).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/domains/"+ok.ID+"/verify", otherKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/domains/"+ok.ID, otherKey, nil).ExpectError(404, "not_found")
	l := e.Do("GET", "/orgs/c/domains", e.AdminKey, nil).Expect(200).List()
	if len(l) != 3 || l[0]["domain"] != "missing.example.test" {
		t.Fatalf("list %v", l)
	}
	e.Do("DELETE", "/orgs/c/domains/"+missing.ID, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/domains/"+missing.ID, e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestDomainPrivateKeyNeverLeaves(t *testing.T) {
	t.Parallel()
	e, dnsSrv := domainEnv(t)
	var d app.Domain
	created := e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "secret.example.test"}).Expect(201)
	created.JSON(&d)
	publish(dnsSrv, d)
	answers := [][]byte{created.Body,
		e.Do("GET", "/orgs/c/domains/"+d.ID, e.AdminKey, nil).Expect(200).Body,
		e.Do("GET", "/orgs/c/domains", e.AdminKey, nil).Expect(200).Body,
		e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200).Body,
		e.Do("POST", "/orgs/c/emails/identities", e.AdminKey, map[string]any{"email": "a@secret.example.test"}).Expect(201).Body,
		e.Do("GET", "/orgs/c/emails/identities", e.AdminKey, nil).Expect(200).Body,
	}
	full, err := e.Runtime.Service.GetDomain(context.Background(), e.Org.ID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(full.PrivateKeyPEM))
	if block == nil || block.Type != "RSA PRIVATE KEY" {
		t.Fatalf("service holds no usable key")
	}
	body := strings.Join(strings.Split(strings.TrimSpace(full.PrivateKeyPEM), "\n")[1:], "")
	body = strings.TrimSuffix(body, "-----END RSA PRIVATE KEY-----")
	needles := [][]byte{[]byte("PRIVATE KEY"), []byte(body[:64]), []byte(body[len(body)-64:]), block.Bytes[:48]}
	for i, a := range answers {
		for _, n := range needles {
			if bytes.Contains(a, n) {
				t.Fatalf("answer %d holds the private key", i)
			}
		}
	}
	// The database file (and its write-ahead log) holds the key sealed only.
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(e.Runtime.Config.DB.Path + suffix)
		if err != nil && suffix == "" {
			t.Fatal(err)
		}
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Fatalf("database file%s holds the private key in clear", suffix)
			}
		}
	}
	if err := e.Runtime.DB.Backup(context.Background(), e.Runtime.Config.DB.Path+".copy"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(e.Runtime.Config.DB.Path + ".copy")
	if len(data) == 0 || !bytes.Contains(data, []byte("sealed:v1:")) {
		t.Fatalf("the copy does not hold the sealed key")
	}
	for _, n := range needles {
		if bytes.Contains(data, n) {
			t.Fatalf("database copy holds the private key in clear")
		}
	}
}

func TestPublicOrgByDomain(t *testing.T) {
	t.Parallel()
	e, dnsSrv := domainEnv(t)
	e.Do("PATCH", "/orgs/c", e.AdminKey, map[string]any{"name": "Acme", "logo_url": "https://acme.test/logo.png",
		"config": map[string]string{"email": "hi@acme.test", "address": "1 Road", "terms_url": "https://acme.test/t",
			"privacy_url": "https://acme.test/p"}}).Expect(200)
	var d, pending app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "acme.test"}).Expect(201).JSON(&d)
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "pending.acme.test"}).Expect(201).JSON(&pending)
	publish(dnsSrv, d)
	e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200)

	for _, host := range []string{"acme.test", "ACME.test"} {
		m := e.Do("GET", "/domains/"+host, "", nil).Expect(200).Map()
		want := map[string]any{"id": e.Org.ID, "name": "Acme", "verified": true, "logo_url": "https://acme.test/logo.png", "plan": "free"}
		for k, v := range want {
			if m[k] != v {
				t.Fatalf("%s = %v, want %v (%v)", k, m[k], v, m)
			}
		}
		cfg, _ := m["config"].(map[string]any)
		feats, _ := m["features"].(map[string]any)
		if cfg["email"] != "hi@acme.test" || cfg["address"] != "1 Road" || cfg["terms_url"] != "https://acme.test/t" ||
			cfg["privacy_url"] != "https://acme.test/p" || len(feats) < 4 || feats["broadcasts"] != false {
			t.Fatalf("public info %v", m)
		}
		for _, private := range []string{"balance", "created_at", "updated_at", "members", "parent_org_id"} {
			if _, ok := m[private]; ok {
				t.Fatalf("public info shows %s: %v", private, m)
			}
		}
	}
	unknown := e.Do("GET", "/domains/nobody.test", "", nil).ExpectError(404, "not_found")
	unverified := e.Do("GET", "/domains/pending.acme.test", "", nil).ExpectError(404, "not_found")
	if !bytes.Equal(unknown.Body, unverified.Body) {
		t.Fatalf("unknown %s and unverified %s differ", unknown.Body, unverified.Body)
	}
	e.Do("GET", "/domains/not_a_host", "", nil).ExpectError(404, "not_found")

	// A sub-organization's domain shows its parent.
	sub, _ := e.OrgWithAdmin("Sub")
	var sd app.Domain
	e.Do("POST", "/orgs/"+sub.ID+"/domains", e.AdminKey, map[string]string{"domain": "sub.test"}).Expect(201).JSON(&sd)
	publish(dnsSrv, sd)
	e.Do("POST", "/orgs/"+sub.ID+"/domains/"+sd.ID+"/verify", e.AdminKey, nil).Expect(200)
	m := e.Do("GET", "/domains/sub.test", "", nil).Expect(200).Map()
	if m["id"] != sub.ID || m["parent_org_id"] != e.Org.ID {
		t.Fatalf("sub-org public info %v", m)
	}
	// A domain whose records disappear fails its next check and stops answering.
	dnsSrv.SetTXT(d.DKIMTokens[0].Name, "v=DKIM1; k=rsa; p=gone")
	e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200)
	e.Do("GET", "/domains/acme.test", "", nil).ExpectError(404, "not_found")
}

// A failed lookup names the DNS server that was asked (dns.resolver), not the system's.
func TestDomainVerifyErrorNamesTheResolverAsked(t *testing.T) {
	t.Parallel()
	e, dnsSrv := domainEnv(t)
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "nowhere.example.test"}).Expect(201).JSON(&d)
	m := e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).Expect(200).Map()
	why := str(m, "verify_error")
	if m["dkim_status"] != "FAILED" || !strings.Contains(why, "on "+dnsSrv.Addr+":") {
		t.Fatalf("verify_error %q should name %s", why, dnsSrv.Addr)
	}
}
