package sqlite

import (
	"context"
	"sync"

	"wsapi/app"
)

// ReadApart runs parts at once, each in a read transaction of its own on its own reader, and
// answers as if they had run in one: when anything was committed while they ran (the WAL
// index's stamp moved), or there is no stamp to tell, they run again one after another in
// one read transaction. A part must only read and set its own results, since it may run
// twice. The error is the first part's, in the order given.
//
// Why: one request's big lookups (a bulk dry run matches tens of thousands of keys by three
// columns) use one core per reader, and the machine may have two. No goroutine holds one
// reader while it waits for another, so parts never deadlock on the pool.
func (db *DB) ReadApart(ctx context.Context, parts ...func(app.Tx) error) error {
	before, stamped := db.wal.stamp()
	if stamped && len(parts) > 1 {
		errs := make([]error, len(parts))
		panics := make([]any, len(parts))
		var wg sync.WaitGroup
		for i, part := range parts {
			wg.Go(func() {
				// A part's panic is the request's, raised again on its own goroutine below,
				// where the server's recovery answers it, rather than the process's end.
				defer func() { panics[i] = recover() }()
				errs[i] = db.Read(ctx, part)
			})
		}
		wg.Wait()
		for _, p := range panics {
			if p != nil {
				panic(p)
			}
		}
		if after, ok := db.wal.stamp(); ok && after == before {
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			return nil
		}
	}
	return db.Read(ctx, func(tx app.Tx) error {
		for _, part := range parts {
			if err := part(tx); err != nil {
				return err
			}
		}
		return nil
	})
}
