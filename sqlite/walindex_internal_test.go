//go:build unix

package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"wsapi/app"
)

// TestAuthVersionFollowsEveryCommit: the WAL index's stamp changes with every commit, this
// handle's or another's on the same file (as another process's), and AuthVersion answers
// without SQLite only while it has not: a version bumped elsewhere is seen on the next call.
func TestAuthVersionFollowsEveryCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := twoHandles(t)
	stamp := func() walStamp {
		t.Helper()
		s, ok := db.wal.stamp()
		if !ok {
			t.Fatal("no stamp from the WAL index")
		}
		return s
	}
	version := func() int64 {
		t.Helper()
		v, err := db.AuthVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	bump := func(on *DB) {
		t.Helper()
		if _, err := on.writer.ExecContext(ctx, `UPDATE auth_version SET version = version + 1 WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
	}

	v0 := version()
	s0 := stamp()
	d0, _ := db.DataVersion()
	if v, ok := db.authSeen.get(d0); !ok || v != v0 {
		t.Fatalf("the version read under an unchanged stamp is not kept (%d, %v)", v, ok)
	}
	if version() != v0 || stamp() != s0 {
		t.Fatal("a read changed the version or the stamp")
	}
	bump(other)
	if stamp() == s0 {
		t.Fatal("another handle's commit left the stamp as it was")
	}
	if v := version(); v != v0+1 {
		t.Fatalf("after another handle's change the version is %d, want %d", v, v0+1)
	}
	s1 := stamp()
	bump(db)
	if stamp() == s1 {
		t.Fatal("this handle's commit left the stamp as it was")
	}
	if v := version(); v != v0+2 {
		t.Fatalf("after this handle's change the version is %d, want %d", v, v0+2)
	}
	// A checkpoint that copies the whole WAL back, then a commit that starts the WAL over.
	truncateWAL(t, other)
	version()
	bump(other)
	if v := version(); v != v0+3 {
		t.Fatalf("after a WAL restart the version is %d, want %d", v, v0+3)
	}
}

// TestClosedWALIndexHasNoStamp: after Close nothing reads the unmapped page.
func TestClosedWALIndexHasNoStamp(t *testing.T) {
	t.Parallel()
	db, _ := migratedDB(t, busyTimeout)
	if _, ok := db.wal.stamp(); !ok {
		t.Fatal("no stamp while open")
	}
	db.Close()
	if _, ok := db.wal.stamp(); ok {
		t.Fatal("a stamp after Close")
	}
}

// TestWALIndexCutUnderItsMapping: an index file cut to nothing under the mapping (which
// SQLite never does while this process has the database open) costs the stamp, not the
// process: the fault is caught.
func TestWALIndexCutUnderItsMapping(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.db-shm")
	header := make([]byte, walIndexBytes)
	for _, copyAt := range []int{0, 48} {
		header[copyAt+12] = 1 // isInit of both header copies
	}
	if err := os.WriteFile(path, header, 0o600); err != nil {
		t.Fatal(err)
	}
	w := mapWALIndex(path)
	if w == nil {
		t.Fatal("not mapped")
	}
	defer w.close()
	if _, ok := w.stamp(); !ok {
		t.Fatal("no stamp from a whole file")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.stamp(); ok {
		t.Fatal("a stamp from a file cut to nothing")
	}
}

// TestDataVersionFollowsEveryCommit: DataVersion holds while only reads happen, and moves
// with every commit, this handle's or another's on the same file (as another process's),
// across a WAL restart too; a closed database has none.
func TestDataVersionFollowsEveryCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := twoHandles(t)
	version := func() int64 {
		t.Helper()
		v, ok := db.DataVersion()
		if !ok {
			t.Fatal("no data version")
		}
		return v
	}
	exec := func(on *DB, query string) {
		t.Helper()
		if _, err := on.writer.ExecContext(ctx, query); err != nil {
			t.Fatal(err)
		}
	}
	v := version()
	for range 3 {
		if err := db.Read(ctx, func(tx app.Tx) error { _, err := tx.AuthVersion(); return err }); err != nil {
			t.Fatal(err)
		}
		if got := version(); got != v {
			t.Fatalf("a read moved the version from %d to %d", v, got)
		}
	}
	bump := func(on *DB) func() {
		return func() { exec(on, `UPDATE auth_version SET version = version + 1`) }
	}
	for _, c := range []struct {
		what   string
		commit func()
	}{
		{"this handle's commit", bump(db)},
		{"another handle's commit", bump(other)},
		{"a commit after a full checkpoint (the WAL starts over)", func() {
			truncateWAL(t, other)
			bump(other)()
		}},
	} {
		c.commit()
		if got := version(); got == v {
			t.Errorf("%s left the version at %d", c.what, v)
		}
		v = version()
	}
	db.Close()
	if _, ok := db.DataVersion(); ok {
		t.Error("a data version after Close")
	}
}

// twoHandles opens a migrated database and a second handle on its file, as another process
// would hold it.
func twoHandles(t *testing.T) (db, other *DB) {
	t.Helper()
	db = openInternal(t)
	other, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return db, other
}

// staleMapping makes db's mapping read a copy of its index file, which no commit writes
// again, as a mapping left behind by a -shm file deleted and made anew would. named is the
// name the index goes by afterwards: the copy's own (the file under the name is still the
// one mapped) or the real one (a new file is under it now).
func staleMapping(t *testing.T, db *DB, realName bool) {
	t.Helper()
	shm := db.Path() + "-shm"
	b, err := os.ReadFile(shm)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "stale-shm")
	if err := os.WriteFile(copied, b, 0o600); err != nil {
		t.Fatal(err)
	}
	stale := mapWALIndex(copied)
	if stale == nil {
		t.Fatal("the copy is not mapped")
	}
	old := db.wal
	if realName {
		stale.shm = shm
	}
	db.wal = stale
	old.close()
}

// writeRows commits a write through the group commit that changes a row.
func writeRows(t *testing.T, db *DB) {
	t.Helper()
	err := db.Write(context.Background(), func(tx app.Tx) error {
		_, err := tx.(*Tx).exec(`UPDATE auth_version SET version = version + 1 WHERE id = 1`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStaleWALIndexFallsBackToQueries: a mapping that no longer follows the database (its
// file is still the one under the name, so mapping again would not help) is noticed at the
// first commit of this process that changes a row: DataVersion answers "not known" from then
// on, and AuthVersion, which trusted it, sees every change another handle makes.
func TestStaleWALIndexFallsBackToQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := twoHandles(t)
	writeRows(t, db) // the baseline of the writer's row count
	staleMapping(t, db, false)
	if _, ok := db.DataVersion(); !ok {
		t.Fatal("no data version before the stale mapping was noticed")
	}
	// A commit that changes nothing, and one whose only change was undone, prove nothing.
	if err := db.Write(ctx, func(app.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	undone := db.Write(ctx, func(tx app.Tx) error {
		if _, err := tx.(*Tx).exec(`UPDATE auth_version SET version = version + 1 WHERE id = 1`); err != nil {
			return err
		}
		return app.ErrConflict
	})
	if undone == nil {
		t.Fatal("the failing write succeeded")
	}
	if _, ok := db.DataVersion(); !ok {
		t.Fatal("a commit that changed nothing froze the stamp")
	}
	writeRows(t, db)
	if _, ok := db.DataVersion(); ok {
		t.Fatal("a commit that left the mapped stamp as it was did not stop its use")
	}
	v0, err := db.AuthVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.writer.ExecContext(ctx, `UPDATE auth_version SET version = version + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if v, err := db.AuthVersion(ctx); err != nil || v != v0+1 {
		t.Fatalf("after another handle's change the version is %d (%v), want %d", v, err, v0+1)
	}
}

// TestReplacedWALIndexIsMappedAgain: when the file under the index's name is another one
// than the one mapped, the first commit that does not move the stamp maps the new file, and
// the stamp follows every commit again (with a number no earlier answer had).
func TestReplacedWALIndexIsMappedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, other := twoHandles(t)
	writeRows(t, db)
	v0, ok := db.DataVersion()
	if !ok {
		t.Fatal("no data version")
	}
	staleMapping(t, db, true)
	writeRows(t, db)
	v1, ok := db.DataVersion()
	if !ok {
		t.Fatal("no data version after the index was mapped again")
	}
	if v1 == v0 {
		t.Fatal("the data version did not move over the commit that found the stale mapping")
	}
	if _, err := other.writer.ExecContext(ctx, `UPDATE auth_version SET version = version + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if v2, ok := db.DataVersion(); !ok || v2 == v1 {
		t.Fatalf("another handle's commit left the data version at %d (%v)", v2, ok)
	}
}

// TestWALIndexFileMadeAnewIsMappedAgain: when every connection of the process has closed
// (SQLite's last close deletes the -shm file; a restore or a clean-up script would too), the
// next connection makes a new index file and the old mapping reads one nothing writes any
// more. The first commit
// notices, maps the new file, and the stamp follows commits again.
func TestWALIndexFileMadeAnewIsMappedAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openInternal(t)
	writeRows(t, db)
	v0, ok := db.DataVersion()
	if !ok {
		t.Fatal("no data version")
	}
	idle := func(n int) {
		db.writer.SetMaxIdleConns(n)
		db.reader.SetMaxIdleConns(n)
	}
	db.ckpt.close() // its connection too (it may be copying the WAL right now)
	idle(0)         // every connection to the file closes: SQLite's last close deletes the -shm itself
	if err := os.Remove(db.Path() + "-shm"); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	idle(2)
	writeRows(t, db) // a new writer connection, which makes a new -shm
	if _, err := os.Stat(db.Path() + "-shm"); err != nil {
		t.Fatalf("no new index file: %v", err)
	}
	v1, ok := db.DataVersion()
	if !ok || v1 == v0 {
		t.Fatalf("after the index file was made anew the data version is %d (%v), was %d", v1, ok, v0)
	}
	other, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.writer.ExecContext(ctx, `UPDATE auth_version SET version = version + 1 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	if v2, ok := db.DataVersion(); !ok || v2 == v1 {
		t.Fatalf("another handle's commit left the data version at %d (%v)", v2, ok)
	}
}

// TestWritesThatChangeNothingKeepTheStamp: on a live mapping, writes that change no row
// (the first on a connection that migrated, later ones, one undone) never stop the stamp's use.
func TestWritesThatChangeNothingKeepTheStamp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openInternal(t) // its writer ran the migrations, which changed rows
	for range 3 {
		if err := db.Write(ctx, func(app.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	writeRows(t, db)
	if err := db.Write(ctx, func(app.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := db.DataVersion(); !ok {
		t.Fatal("writes on a live mapping stopped the stamp's use")
	}
}
