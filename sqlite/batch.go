package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"wsapi/app"
)

// Group commit. Write transactions queue for the one writer connection; whoever finds no
// batch under way leads: it runs every write queued so far in one SQLite transaction, each
// inside its own savepoint, commits once, answers each its own result, then hands the lead
// to the first write that queued meanwhile. A write that fails (or panics) is rolled back to
// its savepoint and answered its error; the others in its batch commit as if each had been a
// transaction of its own, one after the other. What batching saves is the commit: every
// commit writes each page it changed to the WAL, and the writes of concurrent runs and
// requests change the same pages (the stream outbox's tail, the chats' indexes), so a
// batch writes them once. bench/runs: commits were 14% of the CPU of a run. A new leader
// first yields (runtime.Gosched), so that on a busy core the writes about to queue join its
// batch: on one core nothing else runs while it works. The first write
// of a transaction needs no savepoint (see inBatch): a big write that runs alone keeps no
// copy of the pages it changes.

// maxBatch bounds the writes of one batch, so none waits behind an unbounded queue.
const maxBatch = 64

// writeQueue holds the writes waiting for the writer.
type writeQueue struct {
	mu      sync.Mutex
	calls   []*writeCall
	leading bool // a batch is under way; the leader takes the next one or hands over
	// noYield: the leader never yields, neither before its batch nor between its writes.
	// The spool's (spool.go): its writes take microseconds, and a yield puts the leader
	// behind whatever the busy core runs (the store's writer), milliseconds, for a batch it
	// would have run by then.
	noYield bool
}

// writeCall is one Write waiting for its batch.
type writeCall struct {
	ctx    context.Context
	fn     func(app.Tx) error
	queued time.Time
	done   chan writeResult // its result, once its batch has committed or failed
	lead   chan struct{}    // the lead, handed over by the previous leader
}

type writeResult struct {
	err      error
	panicked any // a panic of fn, raised again on the caller's goroutine
	// work: the write queued background work; streamed: the stream events it wrote (the
	// hooks run after the commit).
	work     Work
	streamed []app.StreamEvent
	// changed: a statement of the write changed rows (the commit check, walindex.go).
	changed bool
}

// errBatch marks the writes of a batch that a failure of the transaction itself undid.
var errBatch = errors.New("sqlite: the write batch failed")

// Write runs fn in a write transaction of its own (see the group commit above): an error
// or a panic of fn undoes everything fn wrote, and nothing else.
func (db *DB) Write(ctx context.Context, fn func(app.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	c := &writeCall{ctx: ctx, fn: fn, queued: time.Now(), done: make(chan writeResult, 1), lead: make(chan struct{}, 1)}
	q := &db.writes
	q.mu.Lock()
	q.calls = append(q.calls, c)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead {
		select {
		case r := <-c.done:
			return r.answer()
		case <-c.lead: // the write is first in the queue: it leads the next batch
		}
	}
	// Let the goroutines that are ready to run first: on a busy core, the requests whose
	// writes are about to queue do so now and join this batch, instead of each paying for a
	// commit of its own (on one core, nothing else runs while the leader works).
	if !db.writes.noYield {
		runtime.Gosched()
	}
	db.lead()
	r := <-c.done
	return r.answer()
}

// answer is what Write answers: the error, or the panic of fn raised again.
func (r writeResult) answer() error {
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// lead runs the next batch, then hands the lead to the first write queued meanwhile.
func (db *DB) lead() {
	q := &db.writes
	q.mu.Lock()
	n := min(len(q.calls), maxBatch)
	batch := q.calls[:n:n]
	q.calls = q.calls[n:]
	q.mu.Unlock()
	db.runBatch(batch)
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.calls) == 0 {
		q.leading = false
		return
	}
	q.calls[0].lead <- struct{}{}
}

// runBatch runs the writes of a batch in one transaction and answers each.
func (db *DB) runBatch(batch []*writeCall) {
	if db.writeWait != nil {
		began := time.Now()
		for _, c := range batch {
			db.writeWait(began.Sub(c.queued))
		}
	}
	if db.writeBatch != nil {
		db.writeBatch(len(batch))
	}
	results := make([]writeResult, len(batch))
	before, stamped := db.wal.read()
	err := db.inBatch(batch, results)
	var work Work
	var streamed []app.StreamEvent // in seq order: the writes ran one after the other
	// changed: the committed writes reported rows changed, so the commit must move the WAL
	// index's stamp (checkCommit). Unless clean, it proves nothing: a write undone to its
	// savepoint may have reported rows the commit does not hold.
	clean, changed := err == nil, false
	for i := range results {
		r := &results[i]
		if err != nil && r.err == nil && r.panicked == nil {
			r.err = err
		}
		if r.err == nil && r.panicked == nil {
			work |= r.work
			streamed = append(streamed, r.streamed...)
			changed = changed || r.changed
		} else {
			clean = false
		}
	}
	db.checkCommit(before, stamped, clean && changed)
	if work != 0 && db.onQueued != nil {
		db.onQueued(work)
	}
	if len(streamed) > 0 && db.onStreamed != nil {
		db.onStreamed(streamed)
	}
	for i, c := range batch {
		c.done <- results[i]
	}
}

// inBatch runs the batch's writes in one transaction and commits it. An error it answers
// undid the whole transaction: it is every otherwise successful write's. The organizations'
// versions account for the commit (orgversions.go).
func (db *DB) inBatch(batch []*writeCall, results []writeResult) error {
	// Not the callers' contexts: a statement interrupted by one would roll back the whole
	// transaction, every write of the batch with it. A write whose context has ended before
	// its turn does not run; once running it is short.
	tx, err := db.writer.BeginTx(context.Background(), nil)
	if err != nil {
		return txErr("begin", err)
	}
	b := db.versions.begin(db.wal, tx)
	committed, rest, err := db.runTx(tx, batch, results)
	_ = tx.Rollback() // after a commit, a no-op; the writer's one connection is free again
	orgIDs, all := batchScope(batch)
	db.versions.end(db.wal, db.writer, b, committed, orgIDs, all)
	if committed {
		db.ckpt.committed(db.writer)
	}
	if err == nil && rest < len(batch) {
		return db.inBatch(batch[rest:], results[rest:])
	}
	return err
}

// runTx runs the writes in tx and commits it; when the first write fails, the transaction
// is undone and rest is where a new one must start.
func (db *DB) runTx(tx *sql.Tx, batch []*writeCall, results []writeResult) (committed bool, rest int, err error) {
	first := true
	for i, c := range batch {
		if i > 0 && !db.writes.noYield {
			// Between two writes of a batch the leader lets the goroutines waiting for a
			// CPU run: without it a batch of the inbound worker's writes held a core for up
			// to 10 ms (the scheduler's time slice), and with both cores so held a webhook
			// waited that long before it was even read. bench/channels, traced over 4 s at
			// 500 updates/s: hook requests runnable for over 8 ms 528 -> 32. POST /contacts,
			// server on one core, 32 connections: 4,840-5,130 -> 5,450-5,810 req/s.
			runtime.Gosched()
		}
		if err := c.ctx.Err(); err != nil {
			results[i].err = fmt.Errorf("sqlite: begin: %w", err)
			continue
		}
		if first {
			// The first write runs without a savepoint: a savepoint keeps the original of
			// every page changed under it in memory, for a rollback to it (a 50,000-contact
			// import: 130 MB). Should it fail, the transaction holds only its changes: undo
			// it and run the rest in a new one.
			first = false
			if db.runFirst(tx, c, &results[i]) {
				continue
			}
			if err := tx.Rollback(); err != nil {
				return false, len(batch), txErr("rollback", err)
			}
			return false, i + 1, nil
		}
		if err := db.runWrite(tx, c, &results[i]); err != nil {
			return false, len(batch), fmt.Errorf("%w: %w", errBatch, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, len(batch), txErr("commit", err)
	}
	return true, len(batch), nil
}

// runFirst runs the first write of a transaction, without a savepoint; false when it
// failed (the caller undoes the transaction).
func (db *DB) runFirst(tx *sql.Tx, c *writeCall, r *writeResult) bool {
	t := &Tx{tx: tx, ctx: context.WithoutCancel(c.ctx), db: db}
	r.panicked, r.err = callWrite(c.fn, t)
	r.work, r.streamed, r.changed = t.queued, t.streamed, t.changed
	return r.err == nil && r.panicked == nil
}

// runWrite runs one write inside a savepoint, released when it succeeds and rolled back
// when it fails. An error it answers broke the transaction itself.
func (db *DB) runWrite(tx *sql.Tx, c *writeCall, r *writeResult) error {
	bg := context.Background()
	if _, err := tx.ExecContext(bg, "SAVEPOINT write"); err != nil {
		return err
	}
	t := &Tx{tx: tx, ctx: context.WithoutCancel(c.ctx), db: db}
	r.panicked, r.err = callWrite(c.fn, t)
	r.work, r.streamed, r.changed = t.queued, t.streamed, t.changed
	if r.err != nil || r.panicked != nil {
		if _, err := tx.ExecContext(bg, "ROLLBACK TO write"); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(bg, "RELEASE write")
	return err
}

// callWrite runs fn, turning a panic into a value to raise again on the caller's goroutine.
func callWrite(fn func(app.Tx) error, t *Tx) (panicked any, err error) {
	defer func() {
		if v := recover(); v != nil {
			panicked = v
		}
	}()
	return nil, fn(t)
}
