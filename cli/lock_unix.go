//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockServe makes sure one `serve` runs on a database: two would each run the workers and
// claim the same work under separate leases. It holds an exclusive flock on DB.lock beside
// the database for the life of the process (the kernel drops it if the process dies, so a
// crash leaves no stale lock). Admin commands do not take it: they work beside a server.
func lockServe(dbPath string) (unlock func(), err error) {
	path := dbPath + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve: lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("serve: another `app serve` is already running on %s (it holds %s); "+
				"stop it first, or give this one its own database with --db", dbPath, path)
		}
		return nil, fmt.Errorf("serve: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
