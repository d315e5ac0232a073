package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestStatementCacheBoundAndBusy: a connection keeps at most stmtCacheSize statements (the
// oldest idle one makes room); a statement whose rows are open is not handed out again, and
// when every cached statement is busy a new query runs uncached instead of waiting or
// growing the cache.
func TestStatementCacheBoundAndBusy(t *testing.T) {
	t.Parallel()
	db, err := Open(filepath.Join(t.TempDir(), "cache.db")) // plain SELECTs: no schema needed
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.reader.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := range stmtCacheSize + 40 {
		var n int
		if err := conn.QueryRowContext(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&n); err != nil || n != i {
			t.Fatalf("query %d answered %d (%v)", i, n, err)
		}
	}
	err = conn.Raw(func(dc any) error {
		c := dc.(*cachingConn)
		if len(c.stmts) != stmtCacheSize {
			return fmt.Errorf("%d cached statements, bound %d", len(c.stmts), stmtCacheSize)
		}
		const q = "SELECT 1"
		first, err := c.take(ctx, q)
		if err != nil {
			return err
		}
		if _, err := c.take(ctx, q); err != errNotCacheable {
			return fmt.Errorf("a busy statement was handed out again (%v)", err)
		}
		first.busy = false
		if again, err := c.take(ctx, q); err != nil || again != first {
			return fmt.Errorf("an idle statement was not reused (%v)", err)
		}
		for _, s := range c.stmts {
			s.busy = true
		}
		if _, err := c.ExecContext(ctx, "SELECT 'exec uncached'", nil); err != nil {
			return fmt.Errorf("exec with every statement busy: %w", err)
		}
		rows, err := c.QueryContext(ctx, "SELECT 'query uncached'", nil)
		if err != nil {
			return fmt.Errorf("query with every statement busy: %w", err)
		}
		rows.Close()
		if len(c.stmts) != stmtCacheSize {
			return fmt.Errorf("the cache grew to %d with every statement busy", len(c.stmts))
		}
		for _, s := range c.stmts {
			s.busy = false
		}
		if _, err := c.take(ctx, "SELEC nonsense"); err == nil || err == errNotCacheable {
			return fmt.Errorf("a statement that does not parse answered %v", err)
		}
		if _, cached := c.stmts["SELEC nonsense"]; cached {
			return fmt.Errorf("a statement that does not parse was cached")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if db.reader.Driver() == nil {
		t.Error("no driver behind the caching connector")
	}
}
