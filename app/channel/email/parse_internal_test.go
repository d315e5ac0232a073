package email

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// withFiles is a mail with a text part and base64 attachments of the given sizes.
func withFiles(sizes ...int) ([]byte, [][]byte) {
	var b bytes.Buffer
	b.WriteString("From: ann@customer.test\r\nSubject: files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n")
	b.WriteString("--b1\r\nContent-Type: text/plain\r\n\r\nSee the files.\r\n")
	var files [][]byte
	for i, n := range sizes {
		data := make([]byte, n)
		for j := range data {
			data[j] = byte(rand.IntN(256))
		}
		files = append(files, data)
		b.WriteString("--b1\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"f" +
			strings.Repeat("x", i) + ".pdf\"\r\n\r\n")
		enc := base64.StdEncoding.EncodeToString(data)
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\r\n")
	}
	b.WriteString("--b1--\r\n")
	return b.Bytes(), files
}

// TestParseSizesAttachments: an attachment is read into one buffer sized from what is left of
// the mail, not grown by doubling: parsing a mail with a 4 MiB attachment allocates well
// under one and a half times the attachment (io.ReadAll's growth allocated about 2.4 times it), and each file's
// buffer is about its size, the first of several too.
func TestParseSizesAttachments(t *testing.T) {
	raw, files := withFiles(4 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := Parse(raw)
	runtime.ReadMemStats(&after)
	if err != nil || len(p.Files) != 1 || !bytes.Equal(p.Files[0].Data, files[0]) {
		t.Fatalf("parse: %v, %d files", err, len(p.Files))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*(4<<20)/2 {
		t.Fatalf("parsing a 4 MiB attachment allocated %d bytes", alloc)
	}
	raw, files = withFiles(300<<10, 1<<20, 100)
	p, err = Parse(raw)
	if err != nil || len(p.Files) != 3 {
		t.Fatalf("parse: %v, %d files", err, len(p.Files))
	}
	for i, f := range p.Files {
		if !bytes.Equal(f.Data, files[i]) {
			t.Fatalf("file %d differs", i)
		}
		if c, n := cap(f.Data), len(f.Data); n > 64<<10 && c > n+n/4 {
			t.Fatalf("file %d: %d bytes in a buffer of %d", i, n, c)
		}
	}
}
