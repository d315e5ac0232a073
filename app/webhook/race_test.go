//go:build race

package webhook_test

// The race detector slows the pure-Go SQLite about twentyfold; wall-clock bounds scale by
// this much in -race builds.
func init() { slowdown = 20 }
