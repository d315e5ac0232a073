package email

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
)

// spoolAt is the size of data the listener holds in memory as it arrives; past it the rest
// goes to a file (0600, removed at once) and is read back into one buffer of the exact size.
// A buffer grown by doubling as a 25 MiB mail arrived allocated 64 MiB and held 48 MiB at
// its last growth; spooled, the mail costs one 25 MiB buffer (bench/email).
const spoolAt = 1 << 20

// spoolPattern names the listener's spool files.
const spoolPattern = "mail-*.spool"

// sweepSpool removes the spool files a process that crashed mid-mail left in dir. Only a
// directory of the listener's own (serve's is the database's): the system's temporary one may
// hold another server's files in use.
func sweepSpool(dir string) {
	if dir == "" {
		return
	}
	left, _ := filepath.Glob(filepath.Join(dir, spoolPattern))
	for _, f := range left {
		os.Remove(f)
	}
}

// readData reads a mail's data after prefix (its queued envelope) into one buffer: the
// queued body.
func readData(prefix []byte, r io.Reader, dir string) ([]byte, error) {
	head := bytes.NewBuffer(append(make([]byte, 0, 4096), prefix...))
	if _, err := io.CopyN(head, r, spoolAt); errors.Is(err, io.EOF) {
		return head.Bytes(), nil
	} else if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, spoolPattern)
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := io.Copy(f, r)
	if err != nil {
		return nil, err
	}
	body := make([]byte, int64(head.Len())+n)
	copy(body, head.Bytes())
	if _, err := f.ReadAt(body[head.Len():], 0); err != nil {
		return nil, err
	}
	return body, nil
}

// releaseAt is the size of a mail whose memory the listener hands back to the system once
// it is queued.
const releaseAt = 8 << 20

// releaseBig returns the heap's free memory to the system after a mail of n bytes over
// releaseAt was queued: the Go runtime would keep the mail's buffer for reuse, and the
// inbound worker's copies of the same mail (read back, parsed, stored) come on top of it at
// once. A full collection of a small heap, for a rare mail: the 25 MiB mail's peak went from
// 185 to 175 MB (bench/email).
func releaseBig(n int) {
	if n > releaseAt {
		debug.FreeOSMemory()
	}
}
