package sqlite

import (
	"bytes"
	"database/sql"
	"testing"
)

// TestOwnedBytesKeepsItsRow pins what ownedBytes relies on: the driver hands every blob it
// reads in a slice of its own, so a row's bytes stay as they were after the next row is read
// and the rows are closed (a driver that reused its buffer would overwrite the first row).
func TestOwnedBytesKeepsItsRow(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, second := bytes.Repeat([]byte{'a'}, 1<<16), bytes.Repeat([]byte{'b'}, 1<<16)
	if _, err := db.Exec(`CREATE TABLE b (n INTEGER, data BLOB); INSERT INTO b VALUES (1, ?), (2, ?), (3, NULL)`, first, second); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT data FROM b ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	var got []ownedBytes
	for rows.Next() {
		var b ownedBytes
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !bytes.Equal(got[0], first) || !bytes.Equal(got[1], second) || got[2] != nil {
		t.Fatalf("rows changed after they were read: %d rows, first intact %v, second intact %v", len(got),
			len(got) > 0 && bytes.Equal(got[0], first), len(got) > 1 && bytes.Equal(got[1], second))
	}
}
