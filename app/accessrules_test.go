package app_test

import (
	"testing"

	"wsapi/app"
)

// memberWith makes a member of role and answers it acting through a key of its own, and
// the key's token.
func (e *domainEnv) memberWith(name, role string) (app.Caller, string) {
	e.t.Helper()
	m := need(e.svc.CreateMember(e.ctx, e.admin, app.MemberInput{Name: name, Email: name + "@example.com", Role: role}))
	k := need(e.svc.CreateKey(e.ctx, e.admin, app.KeyInput{Name: name + "'s key", MemberID: m.ID}))
	return e.caller(k.Token), k.Token
}

// TestRolePermissions: what each role holds, and that a caller hands out (by a role, a
// member or a key) only what it holds itself.
func TestRolePermissions(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	member, _ := e.memberWith("mia", app.RoleMember)
	for _, c := range []struct {
		who  app.Caller
		perm app.Permission
		has  bool
	}{
		{e.admin, app.Write("webhooks"), true}, {e.admin, app.Read("org"), true},
		{member, app.Write("contacts"), true}, {member, app.Read("webhooks"), true},
		{member, app.Write("webhooks"), false}, {member, app.Write("members"), false}, {member, app.Write("org"), false},
	} {
		if c.who.Perms.Has(c.perm) != c.has {
			t.Errorf("%s has %s: %v, want %v", c.who.Member.Role, c.perm, !c.has, c.has)
		}
	}
	cases := []struct {
		name   string
		who    app.Caller
		in     app.RoleInput
		code   app.Code
		fields []string
	}{
		{"a role within the member's rights", member, app.RoleInput{Name: ptr("Support"),
			Permissions: []app.Permission{"contacts:write", "inbox:read", "contacts:write"}}, "", nil},
		{"beyond the member's rights", member, app.RoleInput{Name: ptr("Hooks"), Permissions: []app.Permission{"webhooks:write"}}, app.CodePermission, nil},
		{"a built-in name", e.admin, app.RoleInput{Name: ptr(" admin "), Permissions: []app.Permission{}}, app.CodeInvalidArgument, []string{"name"}},
		{"unknown permission, no name", e.admin, app.RoleInput{Permissions: []app.Permission{"billing:write", "inbox:delete"}},
			app.CodeInvalidArgument, []string{"name", "permissions"}},
		{"no permissions", e.admin, app.RoleInput{Name: ptr("Empty")}, app.CodeInvalidArgument, []string{"permissions"}},
	}
	var support app.Role
	for _, c := range cases {
		r, err := e.svc.CreateRole(e.ctx, c.who, c.in)
		if c.code == "" {
			if err != nil || len(r.Permissions) != 2 || r.Permissions[0] != "contacts:write" {
				t.Fatalf("%s: %+v, %v", c.name, r, err)
			}
			support = r
			continue
		}
		wantCode(t, c.name, err, c.code, c.fields...)
	}
	// A member of the custom role holds its permissions, a write granting the read.
	sam, samToken := e.memberWith("sam", support.ID)
	if !sam.Perms.Has(app.Read("contacts")) || !sam.Perms.Has(app.Read("inbox")) || sam.Perms.Has(app.Write("inbox")) || sam.Perms.Has(app.Read("org")) {
		t.Fatalf("custom role grants %v", sam.Perms)
	}
	// A role change applies to the next authentication of its members' keys.
	need(e.svc.UpdateRole(e.ctx, e.admin, support.ID, app.RoleInput{Permissions: []app.Permission{"inbox:write"}}))
	if again := e.caller(samToken); !again.Perms.Has(app.Write("inbox")) || again.Perms.Has(app.Read("contacts")) {
		t.Fatalf("after the role changed: %v", again.Perms)
	}
	_, err := e.svc.UpdateRole(e.ctx, member, support.ID, app.RoleInput{Permissions: []app.Permission{"org:write"}})
	wantCode(t, "a member widens a role", err, app.CodePermission)
	// Members: nobody grants a role beyond their own rights, or takes one away.
	_, err = e.svc.CreateMember(e.ctx, member, app.MemberInput{Name: "x", Email: "x@example.com", Role: app.RoleAdmin})
	wantCode(t, "a member makes an admin", err, app.CodePermission)
	_, err = e.svc.CreateMember(e.ctx, e.admin, app.MemberInput{Name: "x", Email: "x@example.com", Role: "role_nope"})
	wantCode(t, "an unknown role", err, app.CodeInvalidArgument, "role")
	_, err = e.svc.CreateMember(e.ctx, e.admin, app.MemberInput{Email: "x", Avatar: "ftp://a"})
	wantCode(t, "bad member", err, app.CodeInvalidArgument, "avatar", "email", "name")
	admin := app.RoleAdmin
	_, err = e.svc.UpdateMember(e.ctx, member, e.admin.Member.ID, app.MemberPatch{Role: ptr(app.RoleMember)})
	wantCode(t, "a member demotes an admin", err, app.CodePermission)
	_, err = e.svc.UpdateMember(e.ctx, e.admin, e.admin.Member.ID, app.MemberPatch{Role: ptr(app.RoleMember)})
	wantCode(t, "the last admin steps down", err, app.CodeConflict)
	need(e.svc.UpdateMember(e.ctx, e.admin, member.Member.ID, app.MemberPatch{Role: &admin}))
	if m := need(e.svc.UpdateMember(e.ctx, e.admin, e.admin.Member.ID, app.MemberPatch{Role: ptr(app.RoleMember)})); m.Role != app.RoleMember {
		t.Fatalf("with a second admin, the first could not step down: %+v", m)
	}
	// A role held by a member cannot go.
	wantCode(t, "delete a held role", e.svc.DeleteRole(e.ctx, e.org.ID, support.ID), app.CodeConflict)
	need(e.svc.UpdateMember(e.ctx, e.caller(e.token), sam.Member.ID, app.MemberPatch{Role: ptr(app.RoleMember)}))
	e.must(e.svc.DeleteRole(e.ctx, e.org.ID, support.ID))
	if l := need(e.svc.ListRoles(e.ctx, e.org.ID, app.Page{Page: 1, Take: 10})); l.Total != 0 {
		t.Fatalf("%d roles left", l.Total)
	}
}

// TestKeyRules: a key acts as its member; keys of other members need members:write and
// no more rights than the caller's; rotated and deleted tokens stop at once.
func TestKeyRules(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	member, memberToken := e.memberWith("mia", app.RoleMember)
	_, err := e.svc.CreateKey(e.ctx, member, app.KeyInput{Name: "borrowed", MemberID: e.admin.Member.ID})
	wantCode(t, "a key for someone else", err, app.CodePermission)
	_, err = e.svc.CreateKey(e.ctx, member, app.KeyInput{})
	wantCode(t, "a key without a name", err, app.CodeInvalidArgument, "name")
	own := need(e.svc.CreateKey(e.ctx, member, app.KeyInput{Name: "mine"}))
	if own.MemberID != member.Member.ID || own.Preview == own.Token {
		t.Fatalf("own key %+v", own.APIKey)
	}
	// Rotation: a member rotates its own key, not an admin's.
	_, err = e.svc.RotateKey(e.ctx, &member, e.org.ID, e.admin.Key.ID)
	wantCode(t, "rotate an admin's key", err, app.CodePermission)
	wantCode(t, "delete an admin's key", e.svc.DeleteKey(e.ctx, &member, e.org.ID, e.admin.Key.ID), app.CodePermission)
	rotated := need(e.svc.RotateKey(e.ctx, &member, e.org.ID, own.ID))
	for _, c := range []struct {
		token string
		ok    bool
	}{{own.Token, false}, {rotated.Token, true}, {"sk_unknown", false}, {"Bearer x", false}, {"", false}} {
		_, err := e.svc.Authenticate(e.ctx, c.token)
		if c.ok && err != nil {
			t.Errorf("token %q: %v", c.token, err)
		}
		if !c.ok {
			wantCode(t, "token "+c.token, err, app.CodeUnauthenticated)
		}
	}
	e.must(e.svc.DeleteKey(e.ctx, nil, e.org.ID, own.ID)) // the operator at the CLI
	_, err = e.svc.Authenticate(e.ctx, rotated.Token)
	wantCode(t, "a deleted key", err, app.CodeUnauthenticated)
	// Deleting a member takes its keys.
	e.must(e.svc.DeleteMember(e.ctx, e.org.ID, member.Member.ID))
	_, err = e.svc.Authenticate(e.ctx, memberToken)
	wantCode(t, "a deleted member's key", err, app.CodeUnauthenticated)
	if l := need(e.svc.ListKeys(e.ctx, e.org.ID, app.Page{Page: 1, Take: 10})); l.Total != 1 {
		t.Fatalf("%d keys left, want the admin's", l.Total)
	}
	nk := need(e.svc.CreateKeyAsOperator(e.ctx, "", "", "ops"))
	if nk.OrgID != e.org.ID || nk.MemberID != e.admin.Member.ID {
		t.Fatalf("operator key %+v", nk.APIKey)
	}
}

// TestOrgTree: {org} resolves to the key's own organization or a descendant; anything else
// reads as not found. Keys of a sub-organization name their member.
func TestOrgTree(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	sub := need(e.svc.CreateOrg(e.ctx, app.OrgInput{Name: " Team A "}, e.org.ID))
	subsub := need(e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "Team A1"}, sub.ID))
	other := need(e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "Elsewhere"}, ""))
	if sub.Name != "Team A" || *sub.ParentOrgID != e.org.ID || sub.Balance != app.InitialBalance || sub.Plan != app.PlanFree {
		t.Fatalf("sub-organization %+v", sub)
	}
	for _, c := range []struct {
		org, want string
	}{{"c", e.org.ID}, {e.org.ID, e.org.ID}, {sub.ID, sub.ID}, {subsub.ID, subsub.ID}, {other.ID, ""}, {"org_nope", ""}} {
		got, err := e.svc.ResolveOrg(e.ctx, e.admin.Principal, c.org)
		if c.want == "" {
			wantCode(t, "resolve "+c.org, err, app.CodeNotFound)
		} else if got != c.want || err != nil {
			t.Errorf("resolve %s: %q, %v", c.org, got, err)
		}
	}
	onSub := e.admin
	onSub.OrgID = sub.ID
	_, err := e.svc.CreateKey(e.ctx, onSub, app.KeyInput{Name: "k"})
	wantCode(t, "a sub-organization key without its member", err, app.CodeInvalidArgument, "member_id")
	_, err = e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "orphan"}, "org_nope")
	wantCode(t, "under an unknown parent", err, app.CodeNotFound)
	l := need(e.svc.ListSubOrgs(e.ctx, e.org.ID, app.Page{Page: 1, Take: 10}))
	if l.Total != 1 || l.Items[0].ID != sub.ID {
		t.Fatalf("children %+v", l.Items)
	}
	if all := need(e.svc.ListOrgs(e.ctx)); len(all) != 4 {
		t.Fatalf("%d organizations", len(all))
	}
	_, err = e.svc.UpdateOrg(e.ctx, sub.ID, app.OrgPatch{Name: ptr(""), LogoURL: ptr("logo.png"),
		Config: &app.OrgConfig{TermsURL: "javascript:x", PrivacyURL: "https://ok.example.com"}})
	wantCode(t, "bad org patch", err, app.CodeInvalidArgument, "config.terms_url", "logo_url", "name")
	got := need(e.svc.UpdateOrg(e.ctx, sub.ID, app.OrgPatch{Name: ptr("Team B"), Config: &app.OrgConfig{Email: "a@b.example"}}))
	if got.Name != "Team B" || got.Config.Email != "a@b.example" || got.Balance != app.InitialBalance {
		t.Fatalf("patched %+v", got)
	}
	// The last admin rule holds only at the top: a sub-organization may have none.
	m := need(e.svc.CreateMember(e.ctx, onSub, app.MemberInput{Name: "Sub admin", Email: "s@example.com", Role: app.RoleAdmin}))
	e.must(e.svc.DeleteMember(e.ctx, sub.ID, m.ID))
}
