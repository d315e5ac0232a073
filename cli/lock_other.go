//go:build !unix

package cli

// lockServe is a no-op where flock does not exist; SQLite's own locking still keeps the file
// consistent, but two servers would both run the workers.
func lockServe(string) (func(), error) { return func() {}, nil }
