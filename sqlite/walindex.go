package sqlite

import (
	"runtime/debug"
	"sync"
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
}

// stamp is the current header, if it could be read whole: SQLite writes the second copy,
// then the first, so equal copies read first then second are one header, not a torn one.
func (w *walIndex) stamp() (s walStamp, ok bool) {
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
