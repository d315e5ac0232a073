//go:build !unix

package sqlite

import "database/sql"

// openWALIndex: no mapping here; every check asks SQLite.
func openWALIndex(*sql.DB, string) *walIndex { return nil }

func (w *walIndex) close() {}

func loadWord([]byte, int) uint32 { return 0 }

// fileID: no files are mapped here.
type fileID struct{}

func (w *walIndex) remap() bool { return false }
