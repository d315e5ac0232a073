package app

import (
	"errors"

	"wsapi/app/cursor"
)

// Cursor lists (memories, messages, knowledge, recipients, the inbox) read one row more than
// the page: the extra row tells that a next page exists, and the last row kept is where it
// starts.
//
// A cursor is a position in one list: the organization, the parent (contact, chat,
// assistant) and the whole filter that made it. It carries a digest of them (its scope) and
// is refused with 400 when sent with another, rather than answering a page of one list from
// a position in another (docs/api-conventions.md, "Pagination").

// listScope names a list by everything that chooses its rows (cursor.Scope).
func listScope(parts ...any) string { return cursor.Scope(parts...) }

// parseCursor reads the next parameter: nil when empty, an invalid_argument naming "next"
// when it is not a cursor of type C answered for the list named by scope.
func parseCursor[C any](next, scope string) (*C, error) {
	if next == "" {
		return nil, nil
	}
	after, err := cursor.Decode[C](next, scope)
	switch {
	case errors.Is(err, cursor.ErrOtherList):
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
		l.Next = cursor.Encode(at(l.Items[take-1]), scope)
	}
}
