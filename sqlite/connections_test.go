package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
)

// Connections keep their secrets sealed and answer them opened; the list filters by type;
// an OAuth state is spent once, and expired states are forgotten.
func TestConnectionsAndOAuthStates(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org := newOrg(t, db, "org_c", "", 0).ID
	conn := func(id, typ, name string) app.Connection {
		return app.Connection{ID: id, OrgID: org, Type: typ, Name: name, Config: map[string]any{"base": "https://x"},
			Secrets: map[string]string{"token": "t-" + id}, SecretKeys: []string{"token"}, CreatedAt: at(0), UpdatedAt: at(0)}
	}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateConnection(conn("conn_1", "TOOLS", "b")), tx.CreateConnection(conn("conn_2", "FILES", "a")),
			tx.CreateConnection(conn("conn_3", "TOOLS", "a")))
	})
	read(t, db, func(tx app.Tx) error {
		c, err := tx.GetConnection(org, "conn_2")
		if err != nil || c.Secrets["token"] != "t-conn_2" || c.Config["base"] != "https://x" || fmt.Sprint(c.SecretKeys) != "[token]" {
			t.Errorf("connection %+v (%v)", c, err)
		}
		if _, err := tx.GetConnection("org_other", "conn_2"); code(err) != "not_found" {
			t.Errorf("another org's connection: %v", err)
		}
		for typ, want := range map[string]string{"": "[conn_2 conn_3 conn_1]", "TOOLS": "[conn_3 conn_1]", "EMAILS": "[]"} {
			cs, total, err := tx.ListConnections(org, typ, app.Page{Page: 1, Take: 10})
			ids := idsOf(cs, func(c app.Connection) string { return c.ID })
			if err != nil || fmt.Sprint(ids) != want || total != len(ids) {
				t.Errorf("type %q: %v total %d (%v)", typ, ids, total, err)
			}
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteConnection(org, "conn_1") })
	if err := db.Write(bg, func(tx app.Tx) error { return tx.DeleteConnection(org, "conn_1") }); code(err) != "not_found" {
		t.Errorf("second deletion: %v", err)
	}
	spend := func(state string, expires, now int) bool {
		var ok bool
		write(t, db, func(tx app.Tx) (err error) { ok, err = tx.SpendOAuthState(state, at(expires), at(now)); return err })
		return ok
	}
	steps := []struct {
		state        string
		expires, now int
		want         bool
	}{
		{"s1", 600, 0, true},
		{"s1", 600, 1, false},   // spent
		{"s2", 10, 2, true},     //
		{"s2", 10, 5, false},    // still remembered
		{"s2", 700, 20, true},   // s2 expired at 10 and was forgotten at 20
		{"s1", 600, 500, false}, // s1 still remembered until 600
	}
	for i, s := range steps {
		if got := spend(s.state, s.expires, s.now); got != s.want {
			t.Errorf("step %d: spending %s at %d answered %v", i, s.state, s.now, got)
		}
	}
}

// Suppressions: an address is listed once, in lower case, and a second listing answers the
// first entry; lookups ignore case; the list searches the address literally.
func TestSuppressions(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_s", "", 0).ID
	var first, again app.Suppression
	write(t, db, func(tx app.Tx) (err error) {
		if first, err = tx.AddSuppression(app.Suppression{ID: "sup_1", OrgID: org, Email: "Ann@Example.com", Reason: "BOUNCE", CreatedAt: at(1)}); err != nil {
			return err
		}
		if again, err = tx.AddSuppression(app.Suppression{ID: "sup_2", OrgID: org, Email: "ann@example.COM", Reason: "MANUAL", CreatedAt: at(2)}); err != nil {
			return err
		}
		_, err = tx.AddSuppression(app.Suppression{ID: "sup_3", OrgID: org, Email: "a_b@example.com", Reason: "MANUAL", CreatedAt: at(3)})
		return err
	})
	if first.Email != "ann@example.com" || again.ID != "sup_1" || again.Reason != "BOUNCE" || !again.CreatedAt.Equal(at(1).Time) {
		t.Errorf("first %+v, again %+v", first, again)
	}
	read(t, db, func(tx app.Tx) error {
		for email, want := range map[string]bool{"ANN@example.com": true, "a_b@example.com": true, "axb@example.com": false} {
			if got, err := tx.IsSuppressed(org, email); err != nil || got != want {
				t.Errorf("IsSuppressed(%s) = %v (%v)", email, got, err)
			}
		}
		if got, _ := tx.IsSuppressed("org_other", "ann@example.com"); got {
			t.Error("suppressed in another org")
		}
		for search, want := range map[string]string{"": "[sup_3 sup_1]", "_": "[sup_3]", "ann": "[sup_1]"} {
			ss, total, err := tx.ListSuppressions(org, search, app.Page{Page: 1, Take: 10})
			ids := idsOf(ss, func(s app.Suppression) string { return s.ID })
			if err != nil || fmt.Sprint(ids) != want || total != len(ids) {
				t.Errorf("search %q: %v total %d (%v)", search, ids, total, err)
			}
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteSuppression(org, "sup_1") })
	if err := db.Write(bg, func(tx app.Tx) error { return tx.DeleteSuppression(org, "sup_1") }); code(err) != "not_found" {
		t.Errorf("second deletion: %v", err)
	}
}
