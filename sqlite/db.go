// Package sqlite is the store: one SQLite file in WAL mode, a single writer connection for
// every write transaction and a pool of readers, with the goose migrations embedded.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"time"

	"wsapi/app"
	"wsapi/app/vcache"

	_ "modernc.org/sqlite" // registers the cgo-free "sqlite" driver
)

// DB is the store. It implements app.Store.
type DB struct {
	writer *sql.DB
	reader *sql.DB
	path   string
	sealer app.Sealer
	// onQueued is called after a write transaction that queued background work (webhook
	// deliveries, broadcast recipients) has committed, with the kinds it queued, so the
	// workers with new work start at once instead of on their next tick.
	onQueued func(Work)
	// onStreamed is called after a write transaction that wrote stream events has committed,
	// so the stream hub fans them out at once instead of on its next poll.
	onStreamed func([]app.StreamEvent)
	// chats keeps loaded chats for inbox pages (CacheChats); nil: each one is loaded.
	chats *vcache.Cache[int64, app.Chat]
	// views keeps the lists of inbox searches (inboxview.go, CacheChats); nil: each is read.
	views *viewCache
	// probe tests changed chats against a search word (ftsprobe.go); nil: in the index.
	probe *sql.DB
	// writeWait is told how long each Write waited for the writer (metrics); nil: nobody.
	writeWait func(time.Duration)
	// writeBatch is told how many writes each batch ran (metrics); nil: nobody.
	writeBatch func(n int)
	// writes queue for the writer, committed in batches (batch.go).
	writes writeQueue
	// ckpt copies the WAL back into the file after commits (checkpoint.go).
	ckpt *checkpointer
	// wal tells whether anything was committed since a stamp (walindex.go); commits numbers
	// the stamps (DataVersion); authSeen is the authentication version last read, under the
	// data version it was read at.
	wal      *walIndex
	commits  commitCount
	authSeen sinceCommit
	// versions number each organization's changes (orgversions.go, OrgVersion).
	versions orgVersions
}

// SetSealer sets what seals secrets at rest; it must be set before secrets are stored.
func (db *DB) SetSealer(s app.Sealer) { db.sealer = s }

// Work is the kinds of background work a write queued, one bit each: only the workers that
// have something new are woken (a webhook delivery need not make the e-mail sender claim).
type Work uint8

// The kinds of background work, by the worker that takes them.
const (
	WorkDeliveries Work = 1 << iota // webhook deliveries: the dispatcher
	WorkRecipients                  // broadcast recipients: the e-mail sender
	WorkKnowledge                   // contents to process: the knowledge processor
	WorkRuns                        // assistant runs: the run worker
	WorkMessages                    // messages to deliver to contacts: the delivery worker
	WorkInbound                     // providers' updates to take in: the inbound worker
)

// OnWorkQueued sets the hook run after each commit that queued background work.
func (db *DB) OnWorkQueued(f func(Work)) { db.onQueued = f }

// OnStreamed sets the hook run after each commit that wrote stream events, with those
// events in seq order, as stored.
func (db *DB) OnStreamed(f func([]app.StreamEvent)) { db.onStreamed = f }

var _ app.Store = (*DB)(nil)

// dsn puts busy_timeout first so that switching to WAL waits instead of failing, as
// PocketBase does; the writer begins IMMEDIATE so a transaction never upgrades mid-way.
func dsn(path string, writer bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "temp_store(MEMORY)")
	if writer {
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "wal_autocheckpoint(0)") // the checkpointer copies, off the writers' path
		// A WAL that grew in a burst is cut back to this when it starts over (as PocketBase).
		q.Add("_pragma", "journal_size_limit(67108864)")
	} else {
		q.Add("_pragma", "query_only(1)")
		// No mmap_size, and the default 2 MB page cache: a reader drops its cache (and
		// unmaps the file) at its first read after any commit, so under writes a larger
		// cache or a mapping costs more than it saves. bench/inbox with 5 messages written a
		// second: p99 35 ms without mmap, 55 ms with 256 MB mapped, 80 ms with a 16 MB cache.
		// (Without writes they gained about 15% on an uncached inbox page.)
	}
	return "file:" + path + "?" + q.Encode()
}

// busyTimeout is how long a connection waits for another process's lock before the
// request fails as unavailable (a 503 the client may retry).
const busyTimeout = 10 * time.Second

// Open opens (and creates) the database file. Call Migrate before use.
func Open(path string) (*DB, error) { return open(path, busyTimeout) }

// open is Open with the busy timeout as a parameter, so tests can reach it quickly.
func open(path string, busy time.Duration) (*DB, error) {
	if err := privateFile(path); err != nil {
		return nil, err
	}
	w, err := openPool(path, true, busy)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.Ping(); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	r, err := openPool(path, false, busy)
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.NumCPU()*2)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	ckpt, err := startCheckpointer(path, busy)
	if err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	return &DB{writer: w, reader: r, path: path, ckpt: ckpt, wal: openWALIndex(w, path)}, nil
}

// openPool opens a pool whose connections keep their prepared statements.
func openPool(path string, writer bool, busy time.Duration) (*sql.DB, error) {
	begin := "BEGIN"
	if writer {
		begin = "BEGIN IMMEDIATE" // a write transaction never upgrades mid-way
	}
	c, err := newCachingConnector(dsn(path, writer, busy), begin)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	return sql.OpenDB(c), nil
}

// Close closes both pools and the checkpointer.
func (db *DB) Close() error {
	db.wal.close() // before the connections: the file stays whole while they are open
	errs := []error{db.ckpt.close()}
	if db.probe != nil {
		errs = append(errs, db.probe.Close())
	}
	return errors.Join(append(errs, db.reader.Close(), db.writer.Close())...)
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers (health checks).
func (db *DB) Ping(ctx context.Context) error {
	var one int
	return db.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Tx is one transaction; its methods, one file per aggregate, implement app.Tx.
type Tx struct {
	tx  session
	ctx context.Context
	// caller is the caller's context when ctx is detached from its cancellation (reads):
	// checked before each statement instead (see Read).
	caller context.Context
	db     *DB
	queued Work
	// streamed: the stream events the transaction wrote, as stored (see OnStreamed);
	// messageEvents holds the index in streamed of each message event, by type and message.
	streamed      []app.StreamEvent
	messageEvents map[string]int
	// readOnly: a snapshot of committed data, whose chats may be cached.
	readOnly bool
	// changed: a statement run through exec changed rows (the commit check, checkCommit).
	changed bool
}

var _ app.Tx = (*Tx)(nil)

// session is what a Tx runs its statements on: the *sql.Tx of a write, the *sql.Conn of a
// read (see Read).
type session interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// queue notes that the transaction queued work of kind w, if it did.
func (t *Tx) queue(w Work, did bool) {
	if did {
		t.queued |= w
	}
}

// Read runs fn in a read transaction on a snapshot. Its statements run on a context without
// the caller's cancellation, which is checked before each statement instead: with a
// cancellable context database/sql and the driver start a goroutine per transaction and per
// statement to watch it (about eight for GET contact), churn that on one core delayed every
// other request. A statement already running finishes (reads are short; the longest, a broad
// inbox search, takes a second at most).
func (db *DB) Read(ctx context.Context, fn func(app.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: begin read: %w", err)
	}
	// A connection and a plain BEGIN rather than an *sql.Tx: database/sql starts a goroutine
	// for every Tx, and one for every query of a Tx, to watch contexts that a read's
	// (detached, see stmtCtx) never ends.
	quiet := context.WithoutCancel(ctx)
	c, err := db.reader.Conn(quiet)
	if err != nil {
		return txErr("begin read", err)
	}
	if _, err := c.ExecContext(quiet, "BEGIN"); err != nil {
		c.Close()
		return txErr("begin read", err)
	}
	defer endRead(c)
	return fn(&Tx{tx: c, ctx: quiet, caller: ctx, db: db, readOnly: true})
}

// endRead ends a read's transaction and gives its connection back to the pool; a connection
// whose ROLLBACK failed may still be in the transaction, so it is closed instead.
func endRead(c *sql.Conn) {
	if _, err := c.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		c.Raw(func(any) error { return driver.ErrBadConn })
	}
	c.Close()
}

// Backup writes a consistent copy of the live database to path (VACUUM INTO), a new file
// made 0600 first (VACUUM INTO fills an empty file and would create a missing one 0644).
func (db *DB) Backup(ctx context.Context, path string) error {
	if err := createPrivate(path); err != nil {
		return err
	}
	if _, err := db.writer.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		os.Remove(path)
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// stmtCtx is the context of the next statement: the caller's once it has ended, so that
// the statement fails at once with its error.
func (t *Tx) stmtCtx() context.Context {
	if t.caller != nil && t.caller.Err() != nil {
		return t.caller
	}
	return t.ctx
}

// txErr wraps a failure to begin or commit a transaction; a busy database stays the
// retryable error that mapErr makes of it.
func txErr(step string, err error) error {
	if e, ok := app.AsError(mapErr(err)); ok {
		return e
	}
	return fmt.Errorf("sqlite: %s: %w", step, err)
}

func (t *Tx) exec(query string, args ...any) (sql.Result, error) {
	res, err := t.tx.ExecContext(t.stmtCtx(), query, args...)
	if err == nil && !t.changed {
		// The driver reads the rows an INSERT, UPDATE or DELETE changed with every statement
		// (sqlite3_changes): no call to SQLite here.
		n, _ := res.RowsAffected()
		t.changed = n > 0
	}
	return res, mapErr(err)
}

func (t *Tx) query(query string, args ...any) (*sql.Rows, error) {
	rows, err := t.tx.QueryContext(t.stmtCtx(), query, args...)
	return rows, mapErr(err)
}

func (t *Tx) row(query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(t.stmtCtx(), query, args...)
}

// execOne runs a statement that must change a row; none changed is not_found.
func (t *Tx) execOne(what, query string, args ...any) error {
	res, err := t.exec(query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: rows affected: %w", err)
	}
	if n == 0 {
		return app.NotFound(what)
	}
	return nil
}

// count runs a COUNT(*) query.
func (t *Tx) count(query string, args ...any) (int, error) {
	var n int
	err := t.row(query, args...).Scan(&n)
	return n, mapErr(err)
}
