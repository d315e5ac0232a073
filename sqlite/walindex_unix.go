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
	mem, id, ok := mapFile(shm)
	if !ok {
		return nil
	}
	return &walIndex{mem: mem, shm: shm, file: id}
}

// fileID tells one file from another of the same name (one deleted and made anew).
type fileID struct{ dev, ino uint64 }

// mapFile maps the first page of shm read-only and answers its identity.
func mapFile(shm string) ([]byte, fileID, bool) {
	f, err := os.Open(shm)
	if err != nil {
		return nil, fileID{}, false
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Size < walIndexBytes {
		return nil, fileID{}, false
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, walIndexBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fileID{}, false
	}
	return mem, fileID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// remap maps the index file again if the file now under its name is another one than the
// one mapped; false when it is the same (or cannot be mapped).
func (w *walIndex) remap() bool {
	var st syscall.Stat_t
	if err := syscall.Stat(w.shm, &st); err != nil || (fileID{dev: uint64(st.Dev), ino: st.Ino}) == w.file {
		return false
	}
	mem, id, ok := mapFile(w.shm)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.mem == nil { // closed meanwhile
		syscall.Munmap(mem)
		return false
	}
	syscall.Munmap(w.mem)
	w.mem, w.file = mem, id
	w.frozen.Store(false)
	return true
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
