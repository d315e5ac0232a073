package sqlite

import (
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// walStamp is the header SQLite keeps at the start of the WAL index (the -shm file beside
// the database): every commit, by any connection of any process, writes a new one (the last
// frame, its checksum, the salts), and nothing else does. Two equal stamps mean nothing was
// committed in between. Layout: https://sqlite.org/walformat.html, "The WAL-Index Header".
type walStamp [walHeaderWords]uint32

// walHeaderWords is the 48-byte header, in 32-bit words; the index holds two copies of it.
const walHeaderWords = 12

// walIndex reads stamps from a read-only mapping of the -shm file (walindex_unix.go). A
// stamp is a few memory loads, where asking SQLite whether anything changed means a read
// transaction: two fcntl locks and a statement. Without a mapping (another platform, or the
// file could not be mapped) there is no stamp and callers ask SQLite.
type walIndex struct {
	mu  sync.RWMutex // held while reading mem, so close never unmaps under a reader
	mem []byte
	// shm is the file mapped and file its identity when it was mapped (walindex_unix.go):
	// a file of the same name but another identity is a new index, to be mapped again.
	shm  string
	file fileID
	// frozen: a commit of this process left the stamp as it was, so the mapping no longer
	// follows the database (checkCommit); callers then ask SQLite instead.
	frozen atomic.Bool
	warned sync.Once
}

// stamp is the current header, if it could be read whole and the mapping still follows
// the database (see frozen).
func (w *walIndex) stamp() (s walStamp, ok bool) {
	if w == nil || w.frozen.Load() {
		return s, false
	}
	return w.read()
}

// read is the header in the mapping, frozen or not: SQLite writes the second copy, then the
// first, so equal copies read first then second are one header, not a torn one.
func (w *walIndex) read() (s walStamp, ok bool) {
	if w == nil {
		return s, false
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.mem == nil {
		return s, false
	}
	// A file cut under the mapping would fault: that must cost the shortcut, not the process.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			s, ok = walStamp{}, false
		}
	}()
	var second walStamp
	for i := range s {
		s[i] = loadWord(w.mem, i)
	}
	for i := range second {
		second[i] = loadWord(w.mem, walHeaderWords+i)
	}
	// Word 3 holds isInit and the page size: zero only before SQLite has written a header.
	return s, s[3] != 0 && s == second
}

// sinceCommit keeps one value read from the database and the data version (DB.DataVersion)
// it was read under: the value still holds while that version has not moved.
type sinceCommit struct {
	mu      sync.Mutex
	version int64
	value   int64
	set     bool
}

func (c *sinceCommit) get(version int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.set && c.version == version
}

func (c *sinceCommit) put(version, v int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version, c.value, c.set = version, v, true
}

// commitCount numbers the stamps read, one more each time a stamp differs from the one read
// before it: equal numbers mean no commit in between. (A stamp read late by a slow reader
// may count again; that costs a cache entry, never a stale one.)
type commitCount struct {
	mu   sync.Mutex
	last walStamp
	n    int64
}

func (c *commitCount) of(s walStamp) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != c.last {
		c.last = s
		c.n++
	}
	return c.n
}

// skip counts one more without a stamp: after the mapping was stale or replaced, no number
// handed out before may stand for what is committed now.
func (c *commitCount) skip() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = walStamp{}
	c.n++
}

// A stale mapping. The stamp is trusted because every commit rewrites the header; a mapping
// that no longer sees those writes would answer one stamp for ever, and every cache kept by
// it (the authentication version, the kept contact answers) would never learn of a change
// again: a revoked key would keep working until a restart. That happens when the -shm file
// is deleted and made anew under the process, or when a connection switches to exclusive
// locking (its WAL index then lives in its own memory). So the writer checks its own commits:
// a batch that changed rows must move the stamp.

// checkCommit runs on the writer after each batch, with the stamp read before it began and
// whether the batch changed rows (a statement of a committed write reported rows changed,
// and no write of the batch was undone: rows undone to a savepoint are reported too). The
// stamp moved: the mapping is live. It did not: if the file under the index's name is
// another one than the one mapped, it is mapped again (that alone proves the mapping dead);
// else, if the batch changed rows, the mapping is stale: DataVersion answers "not known"
// from now on (callers ask SQLite) and the change is logged once. No statement: the rows a
// statement changed come with its result; a stat only when the stamp did not move
// (docs/decisions/wal-index-stamp.md).
func (db *DB) checkCommit(before walStamp, stamped, wrote bool) {
	w := db.wal
	if w == nil {
		return
	}
	after, ok := w.read()
	if ok && stamped && after != before {
		if w.frozen.CompareAndSwap(true, false) { // live again (its file came back, say)
			db.commits.skip()
		}
		return
	}
	if w.remap() {
		db.commits.skip()
		slog.Warn("sqlite: the WAL index file was replaced; mapped it again", "file", w.shm)
		return
	}
	if !ok || !stamped { // no whole header, before or after: nothing to compare
		return
	}
	if wrote && !w.frozen.Swap(true) {
		db.commits.skip()
		w.warned.Do(func() {
			slog.Warn("sqlite: a commit did not change the mapped WAL index; checking for changes by query from now on", "file", w.shm)
		})
	}
}

// DataVersion is a number that changes whenever anything is committed to the database, by
// this process or another (the authentication version is kept under it, keys.go). Without a
// WAL index mapping it is not known.
func (db *DB) DataVersion() (int64, bool) {
	s, ok := db.wal.stamp()
	if !ok {
		return 0, false
	}
	return db.commits.of(s), true
}
