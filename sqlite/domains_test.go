package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

func domain(orgID, id, name string, sec int) app.Domain {
	return app.Domain{ID: id, OrgID: orgID, Domain: name, Selector: "ws1", PrivateKeyPEM: "-----KEY " + id + "-----",
		DKIMStatus: app.StatusPending, DKIMTokens: []app.DNSRecord{{Name: "ws1._domainkey." + name, Value: "v=DKIM1"}},
		VerificationRecord: app.DNSRecord{Name: "_v." + name, Value: "token-" + id}, CreatedAt: at(sec), UpdatedAt: at(sec)}
}

// sealedDB is a migrated store with a sealer for the secrets some aggregates keep.
func sealedDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, _ := openDB(t)
	db.SetSealer(box(t, 7))
	return db
}

// Domains keep their DKIM key sealed and answer it opened; a name is once per organization
// (a conflict naming domain); VerifiedDomain finds the first verified one across
// organizations; deleting a domain takes its identities along.
func TestDomains(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	a, _, _ := seedOrg(t, db, "a@example.com")
	b, _, _ := seedOrg(t, db, "b@example.com")
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateDomain(domain(a.ID, "dom_a1", "mail.example.com", 0)),
			tx.CreateDomain(domain(a.ID, "dom_a2", "alpha.example.com", 1)),
			tx.CreateDomain(domain(b.ID, "dom_b1", "mail.example.com", 2)))
	})
	err := db.Write(bg, func(tx app.Tx) error { return tx.CreateDomain(domain(a.ID, "dom_a3", "mail.example.com", 3)) })
	if e, _ := app.AsError(err); code(err) != "conflict" || e.Fields["domain"] == "" {
		t.Fatalf("a second mail.example.com in one org: %v", err)
	}
	read(t, db, func(tx app.Tx) error {
		if _, err := tx.VerifiedDomain("mail.example.com"); code(err) != "not_found" {
			t.Errorf("verified domain before any verification: %v", err)
		}
		return nil
	})
	// b verifies first (earlier verified_at), then a: b's is the one the name belongs to.
	for _, v := range []struct {
		org, id string
		sec     int
	}{{b.ID, "dom_b1", 10}, {a.ID, "dom_a1", 20}} {
		write(t, db, func(tx app.Tx) error {
			d, err := tx.GetDomain(v.org, v.id)
			if err != nil {
				return err
			}
			d.DKIMStatus, d.VerifiedAt, d.UpdatedAt = app.StatusVerified, at(v.sec), at(v.sec)
			return tx.UpdateDomain(d)
		})
	}
	read(t, db, func(tx app.Tx) error {
		d, err := tx.VerifiedDomain("mail.example.com")
		if err != nil || d.ID != "dom_b1" || d.OrgID != b.ID {
			t.Errorf("verified domain %s of %s (%v), want dom_b1", d.ID, d.OrgID, err)
		}
		d, err = tx.DomainByName(a.ID, "mail.example.com")
		if err != nil || d.ID != "dom_a1" || d.PrivateKeyPEM != "-----KEY dom_a1-----" || d.DKIMStatus != app.StatusVerified ||
			len(d.DKIMTokens) != 1 || d.VerificationRecord.Value != "token-dom_a1" {
			t.Errorf("domain by name %+v (%v)", d, err)
		}
		if _, err := tx.GetDomain(b.ID, "dom_a1"); code(err) != "not_found" {
			t.Errorf("another org's domain: %v", err)
		}
		ds, total, err := tx.ListDomains(a.ID, app.Page{Page: 1, Take: 1})
		if err != nil || total != 2 || len(ds) != 1 || ds[0].ID != "dom_a2" {
			t.Errorf("first page by name: %+v total %d (%v)", ds, total, err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.UpdateDomain(domain(a.ID, "dom_none", "x.example.com", 0)) }); code(err) != "not_found" {
		t.Errorf("update of a missing domain: %v", err)
	}
	// The key is sealed at rest: under another secrets key it does not open.
	db.SetSealer(box(t, 8))
	if err := db.Read(bg, func(tx app.Tx) error { _, err := tx.GetDomain(a.ID, "dom_a1"); return err }); err == nil {
		t.Error("a domain read under another secrets key")
	}
}

func identity(orgID, id, domainID, email string, isDefault bool, sec int) app.EmailIdentity {
	return app.EmailIdentity{ID: id, OrgID: orgID, DomainID: domainID, Email: email, IsDefault: isDefault,
		CreatedAt: at(sec), UpdatedAt: at(sec)}
}

// Identities: one default per organization (a second is a conflict naming is_default until
// the first is cleared), the default lists first, each carries its domain; a domain's
// deletion removes its identities.
func TestIdentities(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org, _, _ := seedOrg(t, db, "a@example.com")
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateDomain(domain(org.ID, "dom_1", "one.example.com", 0)),
			tx.CreateDomain(domain(org.ID, "dom_2", "two.example.com", 0)),
			tx.CreateIdentity(identity(org.ID, "eid_a", "dom_1", "a@one.example.com", false, 1)),
			tx.CreateIdentity(identity(org.ID, "eid_z", "dom_2", "z@two.example.com", true, 2)))
	})
	cases := []struct {
		name, field string
		fn          func(tx app.Tx) error
	}{
		{"a second default", "is_default", func(tx app.Tx) error {
			return tx.CreateIdentity(identity(org.ID, "eid_b", "dom_1", "b@one.example.com", true, 3))
		}},
		{"the same email again", "email", func(tx app.Tx) error {
			return tx.CreateIdentity(identity(org.ID, "eid_c", "dom_1", "a@one.example.com", false, 3))
		}},
	}
	for _, c := range cases {
		err := db.Write(bg, c.fn)
		if e, _ := app.AsError(err); code(err) != "conflict" || e.Fields[c.field] == "" {
			t.Errorf("%s: %v, want a conflict naming %s", c.name, err, c.field)
		}
	}
	write(t, db, func(tx app.Tx) error {
		if err := tx.ClearDefaultIdentity(org.ID); err != nil {
			return err
		}
		e, err := tx.GetIdentity(org.ID, "eid_a")
		if err != nil {
			return err
		}
		name := "Alice"
		e.Name, e.IsDefault, e.ClickTracking, e.OpenTracking, e.UpdatedAt = &name, true, true, true, at(5)
		return tx.UpdateIdentity(e)
	})
	read(t, db, func(tx app.Tx) error {
		es, total, err := tx.ListIdentities(org.ID, app.Page{Page: 1, Take: 10})
		got := idsOf(es, func(e app.EmailIdentity) string { return fmt.Sprint(e.ID, "/", e.IsDefault, "/", e.Domain.Domain) })
		if err != nil || total != 2 || fmt.Sprint(got) != "[eid_a/true/one.example.com eid_z/false/two.example.com]" {
			t.Errorf("identities %v total %d (%v)", got, total, err)
		}
		e, err := tx.GetIdentity(org.ID, "eid_a")
		if err != nil || e.Name == nil || *e.Name != "Alice" || !e.ClickTracking || !e.OpenTracking || e.Status != app.StatusPending {
			t.Errorf("updated identity %+v (%v)", e, err)
		}
		if _, err := tx.GetIdentity("org_other", "eid_a"); code(err) != "not_found" {
			t.Errorf("another org's identity: %v", err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteDomain(org.ID, "dom_2") })
	read(t, db, func(tx app.Tx) error {
		if _, err := tx.GetIdentity(org.ID, "eid_z"); code(err) != "not_found" {
			t.Errorf("identity of a deleted domain: %v", err)
		}
		if es, total, err := tx.ListIdentities("org_other", app.Page{Page: 1, Take: 10}); err != nil || total != 0 || es == nil || len(es) != 0 {
			t.Errorf("identities of an empty org: %v total %d (%v)", es, total, err)
		}
		return nil
	})
	for name, fn := range map[string]func(tx app.Tx) error{
		"delete a missing identity": func(tx app.Tx) error { return tx.DeleteIdentity(org.ID, "eid_z") },
		"update a missing identity": func(tx app.Tx) error { return tx.UpdateIdentity(identity(org.ID, "eid_z", "dom_2", "", false, 0)) },
		"delete a missing domain":   func(tx app.Tx) error { return tx.DeleteDomain(org.ID, "dom_2") },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s: %v", name, err)
		}
	}
}
