package api

import (
	"log/slog"
	"net/http"

	"wsapi/app"
)

var (
	errNoRoute       = &app.Error{Code: app.CodeNotFound, Message: "no such route"}
	errNoMethod      = &app.Error{Code: app.CodeMethodNotAllowed, Message: "method not allowed on this route"}
	errTooLarge      = &app.Error{Code: app.CodeTooLarge, Message: "request body is too large"}
	errUnauthorized  = &app.Error{Code: app.CodeUnauthenticated, Message: "missing or invalid API key"}
	errInternalReply = &app.Error{Code: app.CodeInternal, Message: "internal error"}
)

// statusOf is the one mapping from error codes to HTTP statuses.
func statusOf(code app.Code) int {
	switch code {
	case app.CodeInvalidJSON, app.CodeInvalidArgument:
		return http.StatusBadRequest
	case app.CodeUnauthenticated:
		return http.StatusUnauthorized
	case app.CodePermission:
		return http.StatusForbidden
	case app.CodeNotFound:
		return http.StatusNotFound
	case app.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case app.CodeConflict:
		return http.StatusConflict
	case app.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case app.CodeRateLimited:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    app.Code          `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
	// RequestID is on 500s, for the user to quote (X-Request-Id).
	RequestID string `json:"request_id,omitempty"`
}

// writeError answers err in the error format. An error that is not an *app.Error is a 500
// with a generic message; its detail goes to the log only.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := app.AsError(err)
	if !ok || statusOf(e.Code) == http.StatusInternalServerError {
		// The route pattern, not the path: paths can carry tokens (unsubscribe links).
		logFrom(r).Error("request failed", "method", r.Method, "route", routeOf(r), "err", err)
		e = errInternalReply
	}
	if e.Code == app.CodeUnauthenticated {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
	}
	detail := errorDetail{Code: e.Code, Message: e.Message, Fields: e.Fields}
	if e == errInternalReply {
		detail.RequestID = requestIDOf(r)
	}
	writeJSON(w, statusOf(e.Code), errorBody{Error: detail})
}

func logFrom(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

type loggerKey struct{}
