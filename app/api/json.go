package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"

	"wsapi/app"
)

var internalErrorBody, _ = app.EncodeJSON(errorBodyOf(errInternalReply))

func writeJSON(w http.ResponseWriter, status int, v any) {
	if e, ok := v.(preEncoded); ok {
		if b := e.EncodedJSON(); b != nil {
			writeEncoded(w, status, b)
			return
		}
	}
	b, err := app.EncodeJSON(v)
	if err != nil {
		// A value of ours that does not encode is a bug; say so rather than half a body.
		status, b = http.StatusInternalServerError, internalErrorBody
	}
	writeEncoded(w, status, b)
}

// preEncoded is an answer that may carry its JSON already (app.Contact.EncodedJSON).
type preEncoded interface{ EncodedJSON() []byte }

// writeEncoded sends a body already in the API's JSON form (app.EncodeJSON).
func writeEncoded(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	// A declared length lets guardBodies hand the connection back before the server ends
	// the response, when it closes a connection whose body it did not read.
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b) // the client may be gone; nothing left to tell it
}

// decodeJSON reads one JSON object into v. Unknown fields, malformed JSON, wrong types and
// bodies over the limit each become a clear 4xx that names what is wrong. An empty body reads
// as {} so that validation can name the missing fields.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	if !jsonMediaType(r.Header.Get("Content-Type"), r.ContentLength != 0) {
		return errMediaType
	}
	body, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	return decodeBody(body, v)
}

// readBody reads a request body of at most limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	// Sized from Content-Length when declared: io.ReadAll doubles its buffer as it goes, so a
	// 5 MB bulk import left as much again in garbage copies.
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead) // ReadFrom wants MinRead free to see EOF
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit)); err != nil {
		return nil, decodeError(err)
	}
	return buf.Bytes(), nil
}

// decodeBody decodes one JSON object read by readBody into v.
func decodeBody(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		if every := everyBadField(body, v); every != nil && isFieldError(err) {
			return every
		}
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &app.Error{Code: codeInvalidJSON, Message: "request body must hold a single JSON object"}
	}
	return nil
}

// jsonMediaType tells a request's Content-Type that a JSON body may carry: application/json,
// any parameters (the one type the OpenAPI document lists); a request without a body needs none (it reads as {}). A
// JSON body sent as text/plain or form-encoded (what `curl -d` sends unless told), or with no
// type at all, is refused with 415 rather than guessed, as the OpenAPI document says: a
// browser's form or a CORS "simple request" must not reach a JSON route.
func jsonMediaType(ct string, hasBody bool) bool {
	if ct == "" {
		return !hasBody
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// isFieldError: the body is well-formed JSON but a member is unknown or of the wrong type.
func isFieldError(err error) bool {
	var typ *json.UnmarshalTypeError
	return (errors.As(err, &typ) && typ.Field != "") || strings.HasPrefix(err.Error(), "json: unknown field ")
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return errTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errBodyTimeout
	case errors.As(err, &syn):
		return &app.Error{Code: codeInvalidJSON, Message: fmt.Sprintf("malformed JSON at byte %d: %s", syn.Offset, syn.Error())}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &app.Error{Code: codeInvalidJSON, Message: "malformed JSON: unexpected end of body"}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return &app.Error{Code: codeInvalidJSON, Message: "request body must be a JSON object"}
		}
		return app.Invalid(field, typeProblem(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return app.Invalid(field, "unknown field")
	}
	var ae *app.Error
	if errors.As(err, &ae) {
		return ae
	}
	// A field's own UnmarshalJSON (a timestamp, say) failed.
	return &app.Error{Code: app.CodeInvalidArgument, Message: "invalid value: " + err.Error()}
}

func typeProblem(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[app.Time]():
		return "must be an RFC 3339 date-time"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		// A fraction (2.5) in a whole-number field: "of type number" would name the type
		// the value already has.
		return "must be a whole number"
	}
	return "must be of type " + jsonType(t.Kind().String())
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr":
		return "object"
	}
	return "number"
}
