//go:build unix

package sqlite

import (
	"database/sql"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// walIndexBytes is what is mapped: the two header copies and the checkpoint info fit in it,
// and SQLite grows the file in 32 KB regions, so an initialized file is never shorter.
const walIndexBytes = 4096

// openWALIndex maps the first page of path's -shm file read-only. The file is never cut
// while this process has the database open (SQLite truncates it only for the first
// connection of all), and DB.Close unmaps it before closing the connections.
func openWALIndex(conn *sql.DB, path string) *walIndex {
	// A read makes SQLite open (and size) the index, if no connection has yet.
	var v int
	if err := conn.QueryRow(`PRAGMA schema_version`).Scan(&v); err != nil {
		return nil
	}
	return mapWALIndex(path + "-shm")
}

// mapWALIndex maps the first page of the index file shm, or answers nil.
func mapWALIndex(shm string) *walIndex {
	f, err := os.Open(shm)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() < walIndexBytes {
		return nil
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, walIndexBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &walIndex{mem: mem}
}

func (w *walIndex) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mem != nil {
		syscall.Munmap(w.mem)
		w.mem = nil
	}
}

// loadWord is the i-th 32-bit word of mem, loaded atomically: another process writes it.
func loadWord(mem []byte, i int) uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&mem[i*4])))
}
