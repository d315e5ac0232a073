package app

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code names a class of failure. The HTTP layer maps each code to one status in one place;
// the domain never picks a status itself.
type Code string

// The codes of DESIGN.md's error format that the domain's rules produce. The codes only
// the transport produces (malformed JSON, an unknown method, a body too large, a rate limit,
// an internal error) live in app/api.
const (
	CodeInvalidArgument Code = "invalid_argument"
	CodeUnauthenticated Code = "unauthenticated"
	CodePermission      Code = "permission_denied"
	CodeNotFound        Code = "not_found"
	CodeConflict        Code = "conflict"
	CodeUnavailable     Code = "unavailable"
)

// Error is a failure the API can show to a client: a code, a message fit for people and,
// for invalid input, the reason per field.
type Error struct {
	Code    Code
	Message string
	Fields  map[string]string
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return string(e.Code) + ": " + e.Message
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k]
	}
	return string(e.Code) + ": " + e.Message + " (" + strings.Join(parts, "; ") + ")"
}

// Is lets errors.Is(err, ErrNotFound) match any *Error of the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Fields == nil
}

// Sentinels to compare with errors.Is; they match any Error of their code.
var (
	ErrNotFound        = &Error{Code: CodeNotFound}
	ErrConflict        = &Error{Code: CodeConflict}
	ErrPermission      = &Error{Code: CodePermission}
	ErrUnauthenticated = &Error{Code: CodeUnauthenticated}
	ErrInvalid         = &Error{Code: CodeInvalidArgument}
)

// NotFound says that a thing does not exist or is not visible to the caller; both read alike.
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: what + " not found"}
}

// Conflict says that the change clashes with the current state.
func Conflict(format string, args ...any) *Error {
	return &Error{Code: CodeConflict, Message: fmt.Sprintf(format, args...)}
}

// Taken says that field's value is already used where it must be unique (a 409 naming the
// field, as a 400 names its fields).
func Taken(field, why string) *Error {
	return &Error{Code: CodeConflict, Message: field + " " + why, Fields: map[string]string{field: why}}
}

// Unavailable says that the request could not be served now but may be soon (the database
// is busy): a client should retry.
func Unavailable(why string) *Error {
	return &Error{Code: CodeUnavailable, Message: why}
}

// Forbidden says that the caller's role lacks a permission.
func Forbidden(perm Permission) *Error {
	return &Error{Code: CodePermission, Message: "this key lacks the permission " + string(perm)}
}

// Invalid is a 400 naming one field.
func Invalid(field, why string) *Error {
	return &Error{Code: CodeInvalidArgument, Message: "invalid " + field + ": " + why, Fields: map[string]string{field: why}}
}

// Problems gathers field errors during validation so a client sees all of them at once.
type Problems map[string]string

// Add records why a field is wrong; the first reason per field wins.
func (p Problems) Add(field, why string) {
	if _, ok := p[field]; !ok {
		p[field] = why
	}
}

// Err is nil when nothing was added, else an invalid_argument Error naming every field.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return &Error{Code: CodeInvalidArgument, Message: "invalid " + strings.Join(keys, ", "), Fields: map[string]string(p)}
}

// AsError finds the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
