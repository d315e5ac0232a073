package apitest

import (
	"context"
	"os"
	"testing"

	"wsapi/cli"
)

// Each test's database is its own 0600 copy of the migrated template: every migration
// applied, nothing of another test's data, and a database that exists already (a restart)
// is reopened as it is.
func TestNewStartsFromPrivateMigratedCopy(t *testing.T) {
	a, b := New(t), New(t)
	path := a.Runtime.Config.DB.Path
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("database mode %v, want 0600", fi.Mode().Perm())
	}
	st, err := a.Runtime.DB.MigrationsStatus(context.Background())
	if err != nil || len(st) == 0 {
		t.Fatalf("status %v, %v", st, err)
	}
	for _, s := range st {
		if !s.Applied {
			t.Fatalf("migration %s not applied", s.Name)
		}
	}
	if a.Org.ID == b.Org.ID || path == b.Runtime.Config.DB.Path {
		t.Fatalf("two tests share a database: %s %s", a.Org.ID, b.Org.ID)
	}
	orgs, err := b.Runtime.Service.ListOrgs(context.Background())
	if err != nil || len(orgs) != 1 || orgs[0].ID != b.Org.ID {
		t.Fatalf("second database holds %v, %v; want only its own organization", orgs, err)
	}

	sub := a.SubOrg(a.AdminKey, a.Org.ID, "kept")
	a.Server.Close()
	if err := a.Runtime.Close(); err != nil {
		t.Fatal(err)
	}
	again := New(t, func(c *cli.Config) { c.DB.Path, c.Secrets.KeyFile = path, a.Runtime.Config.Secrets.KeyFile })
	again.Do("GET", "/orgs/"+sub.ID, again.AdminKey, nil).Expect(200)
}
