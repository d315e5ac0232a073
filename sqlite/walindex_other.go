//go:build !unix

package sqlite

import "database/sql"

// openWALIndex: no mapping here; every check asks SQLite.
func openWALIndex(*sql.DB, string) *walIndex { return nil }

func (w *walIndex) close() {}

func loadWord([]byte, int) uint32 { return 0 }
