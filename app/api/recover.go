package api

import (
	"fmt"
	"net/http"
	"runtime/debug"

	"wsapi/app/statuswriter"
)

// recoverPanics answers a panic anywhere below it (middleware, router, handler) with 500
// `internal` in the API's error format, and logs the panic with its stack; the client never
// sees either. Without it net/http would recover the panic itself, print it to stderr
// outside the structured log, and drop the connection with no answer at all.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec, ok := w.(*statusRecorder)
		if !ok {
			rec = &statusRecorder{statuswriter.Recorder{ResponseWriter: w}}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { // a handler's deliberate abort, as net/http means it
				panic(v)
			}
			logFrom(r).Error("panic", "method", r.Method, "route", routeOf(r), "panic", fmt.Sprint(v),
				"stack", string(debug.Stack()))
			if rec.Status != 0 {
				// Part of the answer is out: cutting the connection is the only honest end.
				panic(http.ErrAbortHandler)
			}
			writeError(rec, r, errInternalReply)
		}()
		next.ServeHTTP(rec, r)
	})
}
