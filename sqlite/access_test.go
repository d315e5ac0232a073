package sqlite_test

import (
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// newOrg writes an organization created at sec, under parent when it is not "".
func newOrg(t *testing.T, db *sqlite.DB, id, parent string, sec int) app.Org {
	t.Helper()
	o := app.Org{ID: id, Name: id, Plan: app.PlanFree, Balance: 5, CreatedAt: at(sec), UpdatedAt: at(sec)}
	if parent != "" {
		o.ParentOrgID = &parent
	}
	write(t, db, func(tx app.Tx) error { return tx.CreateOrg(o) })
	return o
}

// Organizations: an update round-trips; sub-organizations page in creation order; OrgWithin
// follows the parent chain upwards only.
func TestOrgTree(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	root := newOrg(t, db, "org_root", "", 0)
	newOrg(t, db, "org_a", "org_root", 1)
	newOrg(t, db, "org_b", "org_root", 1) // the same second as org_a: the id decides
	newOrg(t, db, "org_c", "org_root", 2)
	newOrg(t, db, "org_a1", "org_a", 3)
	newOrg(t, db, "org_lone", "", 4)

	root.Name, root.LogoURL, root.Balance, root.UpdatedAt = "Root", "https://example.com/l.png", 1.25, at(9)
	root.Config.Email, root.Features.Broadcasts = "ops@example.com", true
	write(t, db, func(tx app.Tx) error { return tx.UpdateOrg(root) })
	read(t, db, func(tx app.Tx) error {
		got, err := tx.GetOrg(root.ID)
		if err != nil || got.Name != "Root" || got.Balance != 1.25 || got.Config.Email != "ops@example.com" || !got.Features.Broadcasts || !got.UpdatedAt.Equal(at(9).Time) {
			t.Errorf("updated org %+v (%v)", got, err)
		}
		var pages [][]string
		for page := 1; page <= 3; page++ {
			subs, total, err := tx.ListSubOrgs(root.ID, app.Page{Page: page, Take: 2})
			if err != nil || total != 3 {
				t.Fatalf("page %d: total %d (%v)", page, total, err)
			}
			pages = append(pages, idsOf(subs, func(o app.Org) string { return o.ID }))
		}
		if fmt.Sprint(pages) != "[[org_a org_b] [org_c] []]" {
			t.Errorf("sub-organization pages %v", pages)
		}
		for _, c := range []struct {
			org, ancestor string
			want          bool
		}{{"org_a1", "org_root", true}, {"org_a1", "org_a", true}, {"org_a1", "org_a1", true},
			{"org_root", "org_a", false}, {"org_a1", "org_b", false}, {"org_lone", "org_root", false}} {
			if in, err := tx.OrgWithin(c.org, c.ancestor); err != nil || in != c.want {
				t.Errorf("OrgWithin(%s, %s) = %v (%v)", c.org, c.ancestor, in, err)
			}
		}
		return nil
	})
	err := db.Write(bg, func(tx app.Tx) error { return tx.UpdateOrg(app.Org{ID: "org_gone", Plan: app.PlanFree}) })
	if code(err) != "not_found" {
		t.Errorf("update of a missing org: %v", err)
	}
}

// Members and roles: updates round-trip, a taken email or role name is a conflict naming the
// field, FirstAdmin is the oldest admin, deletes of what is gone are not_found.
func TestMembersAndRoles(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, first, _ := seedOrg(t, db, "first@example.com")
	mem := func(id, email, role string, sec int) app.Member {
		return app.Member{ID: id, OrgID: org.ID, Name: id, Email: email, Role: role, CreatedAt: at(sec), UpdatedAt: at(sec)}
	}
	support := app.Role{ID: "role_support", OrgID: org.ID, Name: "Support", Permissions: []app.Permission{app.Write("inbox")},
		CreatedAt: at(0), UpdatedAt: at(0)}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateRole(support), tx.CreateMember(mem("mem_b", "b@example.com", app.RoleMember, 1)),
			tx.CreateMember(mem("mem_c", "c@example.com", app.RoleAdmin, 2)))
	})
	cases := []struct {
		name, code, field string
		fn                func(tx app.Tx) error
	}{
		{"email taken by update", "conflict", "email", func(tx app.Tx) error {
			m := mem("mem_b", "c@example.com", app.RoleMember, 1)
			return tx.UpdateMember(m)
		}},
		{"role name taken", "conflict", "name", func(tx app.Tx) error {
			r := support
			r.ID = "role_other"
			return tx.CreateRole(r)
		}},
		{"update of a missing member", "not_found", "", func(tx app.Tx) error { return tx.UpdateMember(mem("mem_x", "x@example.com", "", 0)) }},
		{"update of a missing role", "not_found", "", func(tx app.Tx) error { return tx.UpdateRole(app.Role{ID: "role_x", OrgID: org.ID}) }},
		{"delete of a missing role", "not_found", "", func(tx app.Tx) error { return tx.DeleteRole(org.ID, "role_x") }},
		{"role of another organization", "not_found", "", func(tx app.Tx) error { return tx.DeleteRole("org_other", support.ID) }},
	}
	for _, c := range cases {
		err := db.Write(bg, c.fn)
		e, _ := app.AsError(err)
		if code(err) != c.code || (c.field != "" && e.Fields[c.field] == "") {
			t.Errorf("%s: %v, want %s naming %q", c.name, err, c.code, c.field)
		}
	}
	renamed := mem("mem_b", "b2@example.com", support.ID, 1)
	renamed.Name, renamed.Avatar, renamed.UpdatedAt = "Bee", "https://example.com/b.png", at(7)
	support.Name, support.Permissions, support.UpdatedAt = "Helpdesk", []app.Permission{app.Read("contacts")}, at(8)
	write(t, db, func(tx app.Tx) error { return firstErr(tx.UpdateMember(renamed), tx.UpdateRole(support)) })
	read(t, db, func(tx app.Tx) error {
		if got, err := tx.GetMember(org.ID, "mem_b"); err != nil || got != renamed {
			t.Errorf("member %+v (%v), want %+v", got, err, renamed)
		}
		if got, err := tx.GetRole(org.ID, support.ID); err != nil || got.Name != "Helpdesk" || !slices.Equal(got.Permissions, support.Permissions) {
			t.Errorf("role %+v (%v)", got, err)
		}
		if _, err := tx.GetMember("org_other", "mem_b"); code(err) != "not_found" {
			t.Errorf("member of another org: %v", err)
		}
		// seedOrg's admin was created now, after mem_c (at 2026-01-02): mem_c is the first.
		if a, err := tx.FirstAdmin(org.ID); err != nil || a.ID != "mem_c" {
			t.Errorf("first admin %s (%v), want mem_c", a.ID, err)
		}
		if _, err := tx.FirstAdmin("org_none"); code(err) != "not_found" {
			t.Errorf("first admin of nothing: %v", err)
		}
		ms, total, err := tx.ListMembers(org.ID, app.Page{Page: 2, Take: 2})
		if err != nil || total != 3 || len(ms) != 1 || ms[0].ID != first.ID {
			t.Errorf("members page 2: %v total %d (%v)", idsOf(ms, func(m app.Member) string { return m.ID }), total, err)
		}
		rs, total, err := tx.ListRoles(org.ID, app.Page{Page: 1, Take: 10})
		if err != nil || total != 1 || len(rs) != 1 || rs[0].ID != support.ID {
			t.Errorf("roles %+v total %d (%v)", rs, total, err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteRole(org.ID, support.ID) })
	read(t, db, func(tx app.Tx) error {
		if _, err := tx.GetRole(org.ID, support.ID); code(err) != "not_found" {
			t.Errorf("deleted role: %v", err)
		}
		return nil
	})
}

// firstErr answers the first error of a sequence of writes (the rest ran anyway; the
// transaction rolls back as a whole).
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Keys: Authenticate finds the key by its hash with the member's permissions (built-in for a
// built-in role, the custom role's otherwise); a rotated hash replaces the old one; every
// change to keys, members and roles moves the auth version, which the DB answers outside a
// transaction too.
func TestKeysAuthenticateAndAuthVersion(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, admin, adminKey := seedOrg(t, db, "admin@example.com")
	version := func() int64 {
		t.Helper()
		var v int64
		read(t, db, func(tx app.Tx) (err error) { v, err = tx.AuthVersion(); return err })
		if outside, err := db.AuthVersion(bg); err != nil || outside != v {
			t.Fatalf("version outside a transaction %d (%v), inside %d", outside, err, v)
		}
		return v
	}
	role := app.Role{ID: "role_ro", OrgID: org.ID, Name: "Read only", Permissions: []app.Permission{app.Write("contacts")},
		CreatedAt: at(0), UpdatedAt: at(0)}
	agent := app.Member{ID: "mem_agent", OrgID: org.ID, Name: "A", Email: "agent@example.com", Role: role.ID, CreatedAt: at(1), UpdatedAt: at(1)}
	agentKey := app.APIKey{ID: "key_agent", OrgID: org.ID, MemberID: agent.ID, Name: "agent", Preview: "sk_a…", CreatedAt: at(1)}
	adminHash, agentHash := app.HashToken("sk_admin_rotated"), app.HashToken("sk_agent")
	v0 := version()
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateRole(role), tx.CreateMember(agent), tx.CreateKey(agentKey, agentHash))
	})
	v1 := version()
	if v1 <= v0 {
		t.Fatalf("auth version %d after writes, was %d", v1, v0)
	}
	read(t, db, func(tx app.Tx) error {
		p, stored, err := tx.Authenticate(agentHash)
		if err != nil || p.Key.ID != agentKey.ID || p.Member.ID != agent.ID || string(stored) != string(agentHash) {
			t.Fatalf("agent principal %+v (%v)", p, err)
		}
		if !p.Perms.Has(app.Read("contacts")) || !p.Perms.Has(app.Write("contacts")) || p.Perms.Has(app.Read("org")) {
			t.Errorf("custom role permissions %v", p.Perms)
		}
		if _, _, err := tx.Authenticate(app.HashToken("sk_unknown")); code(err) != "not_found" {
			t.Errorf("unknown token: %v", err)
		}
		return nil
	})
	adminKey.Preview, adminKey.RotatedAt = "sk_r…", at(5)
	write(t, db, func(tx app.Tx) error { return tx.ReplaceKeyHash(adminKey, adminHash) })
	if v2 := version(); v2 <= v1 {
		t.Errorf("a rotation left the auth version at %d", v2)
	}
	read(t, db, func(tx app.Tx) error {
		p, _, err := tx.Authenticate(adminHash)
		if err != nil || p.Member.ID != admin.ID || !p.Perms.Has(app.Write("org")) || p.Key.Preview != "sk_r…" ||
			!p.Key.RotatedAt.Equal(at(5).Time) {
			t.Errorf("rotated admin principal %+v (%v)", p, err)
		}
		all, total, err := tx.ListKeys("", app.Page{Page: 1, Take: 10})
		if err != nil || total != 2 || len(all) != 2 {
			t.Errorf("all keys: %d of %d (%v)", len(all), total, err)
		}
		mine, total, err := tx.ListKeys("org_other", app.Page{Page: 1, Take: 10})
		if err != nil || total != 0 || len(mine) != 0 || mine == nil {
			t.Errorf("keys of another org: %v total %d (%v)", mine, total, err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.DeleteKey("org_other", agentKey.ID) }); code(err) != "not_found" {
		t.Errorf("delete through another org: %v", err)
	}
	write(t, db, func(tx app.Tx) error { return tx.DeleteKey(org.ID, agentKey.ID) })
	read(t, db, func(tx app.Tx) error {
		if _, _, err := tx.Authenticate(agentHash); code(err) != "not_found" {
			t.Errorf("deleted key authenticates: %v", err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.ReplaceKeyHash(agentKey, agentHash) }); code(err) != "not_found" {
		t.Errorf("rotation of a deleted key: %v", err)
	}
}

// Assistants: the list leaves deleted ones out and searches names with LIKE's wildcards
// taken literally.
func TestAssistantsListAndUpdate(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, _, _ := seedOrg(t, db, "a@example.com")
	names := []string{"Sales 50%", "Sales 500", "Support_1", "Supportx1", "Gone"}
	var as []app.Assistant
	write(t, db, func(tx app.Tx) error {
		for i, n := range names {
			a := app.Assistant{ID: fmt.Sprintf("asst_%d", i), OrgID: org.ID, Name: n, Enabled: true, CreatedAt: at(i), UpdatedAt: at(i)}
			as = append(as, a)
			if err := tx.CreateAssistant(a); err != nil {
				return err
			}
		}
		gone := as[4]
		gone.Deleted, gone.Config.Model, gone.UpdatedAt = true, "m", at(9)
		return tx.UpdateAssistant(gone)
	})
	read(t, db, func(tx app.Tx) error {
		for search, want := range map[string]string{"": "[asst_0 asst_1 asst_2 asst_3]", "50%": "[asst_0]", "t_1": "[asst_2]",
			"sales": "[asst_0 asst_1]", "Gone": "[]"} {
			got, total, err := tx.ListAssistants(org.ID, search, app.Page{Page: 1, Take: 10})
			ids := idsOf(got, func(a app.Assistant) string { return a.ID })
			if err != nil || fmt.Sprint(ids) != want || total != len(ids) {
				t.Errorf("search %q: %v total %d (%v), want %s", search, ids, total, err, want)
			}
		}
		if a, err := tx.GetAssistant(org.ID, "asst_4"); err != nil || !a.Deleted || a.Config.Model != "m" {
			t.Errorf("deleted assistant %+v (%v)", a, err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.UpdateAssistant(app.Assistant{ID: "asst_0", OrgID: "org_x"}) }); code(err) != "not_found" {
		t.Errorf("update through another org: %v", err)
	}
}
