package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// Cursor lists (memories, messages, knowledge, recipients, the inbox) read one row more than
// the page: the extra row tells that a next page exists, and the last row kept is where it
// starts.

// encodeCursor makes an opaque cursor of a position.
func encodeCursor(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor[T any](s string) (*T, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var v T
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return &v, nil
}

// parseCursor reads the next parameter: nil when empty, an invalid_argument naming "next"
// when it is not a cursor of type C.
func parseCursor[C any](next string) (*C, error) {
	if next == "" {
		return nil, nil
	}
	after, err := decodeCursor[C](next)
	if err != nil {
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
// at the last item kept.
func trimPage[T, C any](l *List[T], take int, at func(T) C) {
	if len(l.Items) > take {
		l.Items = l.Items[:take]
		l.Next = encodeCursor(at(l.Items[take-1]))
	}
}
