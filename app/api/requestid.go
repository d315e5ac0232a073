package api

import (
	"net/http"
	"regexp"

	"wsapi/app"
)

// saneRequestID is what a client's X-Request-Id may be to be kept: it goes into logs and
// answers as is, so nothing that could break a log line or a header.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// newRequestID is the client's X-Request-Id when it is sane, else a new random one (119
// bits); it is set on the answer at once so that every response carries it.
func newRequestID(w http.ResponseWriter, r *http.Request) string {
	id := r.Header.Get("X-Request-Id")
	if !saneRequestID.MatchString(id) {
		id = app.RandomBase62(20)
	}
	w.Header().Set("X-Request-Id", id)
	return id
}

// requestIDOf is the id logRequests gave the request ("" outside it).
func requestIDOf(r *http.Request) string {
	if ri, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		return ri.id
	}
	return ""
}
