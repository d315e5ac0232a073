package api_test

import (
	"testing"

	"wsapi/app/apitest"
)

func TestGetOrgWithBootstrapKey(t *testing.T) {
	e := apitest.New(t)
	got := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map()
	if got["id"] != e.Org.ID || got["name"] != "Default" {
		t.Fatalf("got %v", got)
	}
}

func TestSubOrgIsolation(t *testing.T) {
	e := apitest.New(t)
	a, aKey := e.OrgWithAdmin("A")
	b, _ := e.OrgWithAdmin("B")
	e.Do("GET", "/orgs/"+b.ID, aKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/"+e.Org.ID, aKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c", aKey, nil).Expect(200)
	if got := e.Do("GET", "/orgs/c", aKey, nil).Map()["id"]; got != a.ID {
		t.Fatalf("c with a sub-org key is %v, want %v", got, a.ID)
	}
	if got := e.Do("GET", "/orgs/"+a.ID, e.AdminKey, nil).Expect(200).Map()["id"]; got != a.ID {
		t.Fatalf("parent key reaching child got %v", got)
	}
	if got := e.Do("GET", "/orgs/c", e.AdminKey, nil).Map()["id"]; got != e.Org.ID {
		t.Fatalf("c with the parent key is %v", got)
	}
}
