// Package cursor is the opaque position of a cursor list: JSON of the last row's keys and
// the digest of the list it belongs to (organization, parent, the whole filter), base64url.
// A cursor of another list is told apart (ErrOtherList), so app can refuse it with a 400.
package cursor
