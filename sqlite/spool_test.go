package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/app/channel/inbound"
	"wsapi/sqlite"
)

// TestSpoolKeepsUpdatesInOrderAcrossReopen: Put answers once the update is committed (a
// reopened spool still has it, the file 0600), Take reads the oldest first and takes
// nothing out, Remove takes out only what it names; OnPut runs after each Put.
func TestSpoolKeepsUpdatesInOrderAcrossReopen(t *testing.T) {
	t.Parallel()
	path := sqlite.SpoolPath(filepath.Join(t.TempDir(), "app.db"))
	s, err := sqlite.OpenSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	puts := 0
	s.OnPut(func() { puts++ })
	ctx := context.Background()
	for _, id := range []string{"upd_c", "upd_a", "upd_b"} { // kept in arrival order, not by id
		if err := s.Put(ctx, inbound.Update{ID: id, OrgID: "org_a", DeploymentID: "asi_a", IntegrationID: "telegram",
			Body: []byte(`{"update_id":` + `1}`), CreatedAt: at(1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("spool file %v, %v", fi, err)
	}
	if s, err = sqlite.OpenSpool(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first, err := s.Take(ctx, 2, 1<<30)
	if err != nil || len(first) != 2 || first[0].ID != "upd_c" || first[1].ID != "upd_a" || puts != 3 {
		t.Fatalf("take 2 after reopen: %+v, %v (puts %d)", first, err, puts)
	}
	u := first[0]
	if u.OrgID != "org_a" || u.DeploymentID != "asi_a" || u.IntegrationID != "telegram" || string(u.Body) != `{"update_id":1}` ||
		u.CreatedAt != at(1) || u.NextAttemptAt != at(1) {
		t.Fatalf("update read back %+v", u)
	}
	if err := s.Remove(ctx, []string{"upd_c", "upd_a"}); err != nil {
		t.Fatal(err)
	}
	rest, err := s.Take(ctx, 10, 1<<30)
	if err != nil || len(rest) != 1 || rest[0].ID != "upd_b" {
		t.Fatalf("after remove: %+v, %v", rest, err)
	}
}

// TestQueueUpdateAsRelayed: the relay may queue an update twice (cut short before it took it
// out of the spool) or after its integration was deleted: the first is kept once, the second
// left out, and neither fails the write, so the updates relayed with them are queued.
func TestQueueUpdateAsRelayed(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org := newOrg(t, db, "org_a", "", 0).ID
	for _, q := range workQueues() {
		if q.name == "channel updates" {
			q.seed(t, db, org, 0, 1) // the integration asi_org_a, nothing queued
		}
	}
	up := func(id, asi string) inbound.Update {
		return inbound.Update{ID: id, OrgID: org, DeploymentID: asi, IntegrationID: "telegram", Body: []byte("{}"),
			NextAttemptAt: at(5), CreatedAt: at(5)}
	}
	write(t, db, func(tx app.Tx) error {
		itx := tx.(inbound.Tx)
		return firstErr(itx.QueueUpdate(up("upd_1", "asi_"+org)), itx.QueueUpdate(up("upd_gone", "asi_deleted")),
			itx.QueueUpdate(up("upd_1", "asi_"+org)), itx.QueueUpdate(up("upd_2", "asi_"+org)))
	})
	var ups []inbound.Update
	write(t, db, func(tx app.Tx) (err error) {
		ups, err = tx.(inbound.Tx).ClaimUpdates(at(10), at(20), app.ClaimRoom{Limit: 10})
		return err
	})
	if len(ups) != 2 || ups[0].ID != "upd_1" || ups[1].ID != "upd_2" {
		t.Fatalf("queued %+v", ups)
	}
}

// TestSpoolTakeBoundsBytes: one Put keeps all its updates in one commit, and Take stops at
// its byte bound past the first update: a body bigger than the bound is read alone, and
// bodies that fit exactly are read together.
func TestSpoolTakeBoundsBytes(t *testing.T) {
	t.Parallel()
	s, err := sqlite.OpenSpool(sqlite.SpoolPath(filepath.Join(t.TempDir(), "app.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	up := func(id string, size int) inbound.Update {
		return inbound.Update{ID: id, OrgID: "org_a", DeploymentID: "asi_a", IntegrationID: "email", Body: make([]byte, size), CreatedAt: at(1)}
	}
	if err := s.Put(ctx, up("upd_big", 100), up("upd_1", 40), up("upd_2", 60), up("upd_3", 1)); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		n        int
		maxBytes int64
		want     []string
	}{
		{10, 50, []string{"upd_big"}},           // over the bound, alone
		{10, 100, []string{"upd_big"}},          // 100 + 40 > 100
		{10, 140, []string{"upd_big", "upd_1"}}, // exactly at the bound
		{10, 201, []string{"upd_big", "upd_1", "upd_2", "upd_3"}},
		{2, 1 << 30, []string{"upd_big", "upd_1"}}, // the count bound
	} {
		ups, err := s.Take(ctx, step.n, step.maxBytes)
		var got []string
		for _, u := range ups {
			got = append(got, u.ID)
		}
		if err != nil || !slices.Equal(got, step.want) {
			t.Fatalf("Take(%d, %d) = %v, %v; want %v", step.n, step.maxBytes, got, err, step.want)
		}
	}
	if err := s.Remove(ctx, []string{"upd_big"}); err != nil {
		t.Fatal(err)
	}
	if ups, err := s.Take(ctx, 10, 40); err != nil || len(ups) != 1 || ups[0].ID != "upd_1" {
		t.Fatalf("after the big one left: %+v, %v", ups, err)
	}
}
