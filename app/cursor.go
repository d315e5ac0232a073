package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

// Cursor lists (memories, messages, knowledge, recipients, the inbox) read one row more than
// the page: the extra row tells that a next page exists, and the last row kept is where it
// starts.
//
// A cursor is a position in one list: the organization, the parent (contact, chat,
// assistant) and the whole filter that made it. It carries a digest of them (its scope) and
// is refused with 400 when sent with another, rather than answering a page of one list from
// a position in another (docs/api-conventions.md, "Pagination").

// cursor is the encoded form: the position and the scope it belongs to.
type cursor[C any] struct {
	At  C      `json:"at"`
	For string `json:"for"`
}

// listScope names a list by everything that chooses its rows (the organization, the
// parent's id, the whole filter value), so a cursor can be tied to it.
func listScope(parts ...any) string {
	b, _ := json.Marshal(parts)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// encodeCursor makes an opaque cursor of a position in the list named by scope.
func encodeCursor(v any, scope string) string {
	b, _ := json.Marshal(cursor[any]{At: v, For: scope})
	return base64.RawURLEncoding.EncodeToString(b)
}

// errOtherList: a well-formed cursor of another list (another filter, contact or chat).
var errOtherList = errors.New("cursor of another list")

func decodeCursor[T any](s, scope string) (*T, error) {
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
		return nil, errOtherList
	}
	return &v.At, nil
}

// parseCursor reads the next parameter: nil when empty, an invalid_argument naming "next"
// when it is not a cursor of type C answered for the list named by scope.
func parseCursor[C any](next, scope string) (*C, error) {
	if next == "" {
		return nil, nil
	}
	after, err := decodeCursor[C](next, scope)
	switch {
	case errors.Is(err, errOtherList):
		return nil, Invalid("next", "was answered for another filter or list: keep the parameters of the request that answered it, or start again without next")
	case err != nil:
		return nil, Invalid("next", "is not a cursor this list answered")
	}
	return after, nil
}

// windowOffset is the rows a page skips: none after a cursor, which names where it starts.
func windowOffset[C any](after *C, pg Page) int {
	if after != nil {
		return 0
	}
	return pg.Offset()
}

// trimPage drops the extra row read past take and, when there was one, sets Next to a cursor
// at the last item kept, in the list named by scope.
func trimPage[T, C any](l *List[T], take int, scope string, at func(T) C) {
	if len(l.Items) > take {
		l.Items = l.Items[:take]
		l.Next = encodeCursor(at(l.Items[take-1]), scope)
	}
}
