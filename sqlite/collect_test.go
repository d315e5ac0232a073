package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// An iteration cut short (here its context is cancelled after the first row) is an error from
// collect, not a short list that looks complete.
func TestCollectReportsAnInterruptedIteration(t *testing.T) {
	t.Parallel()
	db, err := Open(filepath.Join(t.TempDir(), "collect.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := db.reader.QueryContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
		SELECT i FROM n`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(rows, func(r rowScanner) (i int, err error) {
		err = r.Scan(&i)
		if i == 1 { // cancel, and wait until database/sql has closed the rows for it
			cancel()
			for deadline := time.Now().Add(5 * time.Second); rows.Err() == nil && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		return i, err
	})
	if err == nil {
		t.Fatalf("an interrupted iteration answered %d of 1000000 rows and no error", len(got))
	}

	rows, err = db.reader.QueryContext(context.Background(), `SELECT 'a' UNION ALL SELECT 'b'`)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := collect(rows, scanString); err != nil || len(all) != 2 || all[0] != "a" || all[1] != "b" {
		t.Fatalf("collect answered %v, %v", all, err)
	}
}
