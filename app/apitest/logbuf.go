package apitest

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// LogBuffer is a log sink for NewLogged that the server's goroutines and the test share.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Line waits up to timeout for a line holding every one of parts and answers it ("" if
// none came): workers log after the answer the test waits on.
func (l *LogBuffer) Line(timeout time.Duration, parts ...string) string {
	for end := time.Now().Add(timeout); ; time.Sleep(10 * time.Millisecond) {
		for _, line := range strings.Split(l.String(), "\n") {
			if containsAll(line, parts) {
				return line
			}
		}
		if time.Now().After(end) {
			return ""
		}
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
