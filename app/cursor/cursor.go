package cursor

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// cursor is the encoded form: the position and the scope it belongs to.
type cursor[C any] struct {
	At  C      `json:"at"`
	For string `json:"for"`
}

// Scope names a list by everything that chooses its rows (the organization, the
// parent's id, the whole filter value), so a cursor can be tied to it.
func Scope(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// Encode makes an opaque cursor of a position in the list named by scope.
func Encode(v any, scope string) string {
	b, _ := json.Marshal(cursor[any]{At: v, For: scope})
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrOtherList: a well-formed cursor of another list (another filter, contact or chat).
var ErrOtherList = errors.New("cursor of another list")

// Decode reads a cursor of a position of type T in the list named by scope.
func Decode[T any](s, scope string) (*T, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var v cursor[T]
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v.For != scope {
		return nil, ErrOtherList
	}
	return &v.At, nil
}
