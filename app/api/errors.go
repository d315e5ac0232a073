package api

import (
	"log/slog"
	"net/http"

	"wsapi/app"
)

var (
	errNoRoute       = &app.Error{Code: app.CodeNotFound, Message: "no such route"}
	errNoMethod      = &app.Error{Code: codeMethodNotAllowed, Message: "method not allowed on this route"}
	errTooLarge      = &app.Error{Code: codeTooLarge, Message: "request body is too large"}
	errUnauthorized  = &app.Error{Code: app.CodeUnauthenticated, Message: "missing or invalid API key"}
	errInternalReply = &app.Error{Code: codeInternal, Message: "internal error"}
	errBodyTimeout   = &app.Error{Code: codeRequestTimeout, Message: "request body did not arrive in time (http.read_timeout, http.min_body_rate)"}
	errMediaType     = &app.Error{Code: codeMediaType, Message: "the request body must be JSON: send it with Content-Type: application/json",
		Fields: map[string]string{"Content-Type": "must be application/json"}}
)

// The codes only the transport produces; the domain's own are in app/errors.go.
const (
	codeInvalidJSON      app.Code = "invalid_json"
	codeMethodNotAllowed app.Code = "method_not_allowed"
	codeTooLarge         app.Code = "payload_too_large"
	codeRateLimited      app.Code = "rate_limited"
	codeInternal         app.Code = "internal"
	// codeRequestTimeout: the body's read deadline passed (guardBodies).
	codeRequestTimeout app.Code = "request_timeout"
	// codeMediaType: a JSON route's body came with another Content-Type (decodeJSON).
	codeMediaType app.Code = "unsupported_media_type"
)

// statusOf is the one mapping from error codes to HTTP statuses.
func statusOf(code app.Code) int {
	switch code {
	case codeInvalidJSON, app.CodeInvalidArgument:
		return http.StatusBadRequest
	case app.CodeUnauthenticated:
		return http.StatusUnauthorized
	case app.CodePermission:
		return http.StatusForbidden
	case app.CodeNotFound:
		return http.StatusNotFound
	case codeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case app.CodeConflict:
		return http.StatusConflict
	case codeTooLarge:
		return http.StatusRequestEntityTooLarge
	case codeRateLimited:
		return http.StatusTooManyRequests
	case app.CodeUnavailable:
		return http.StatusServiceUnavailable
	case codeRequestTimeout:
		return http.StatusRequestTimeout
	case codeMediaType:
		return http.StatusUnsupportedMediaType
	}
	return http.StatusInternalServerError
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    app.Code          `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
	// RequestID is on 500s, for the user to quote (X-Request-Id).
	RequestID string `json:"request_id,omitempty"`
}

// errorBodyOf is the one place an error body is made: fields is always an object ({} when
// no field is at fault), so clients never test for its presence.
func errorBodyOf(e *app.Error) errorBody {
	fields := e.Fields
	if fields == nil {
		fields = map[string]string{}
	}
	return errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, Fields: fields}}
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
	switch e.Code {
	case app.CodeUnauthenticated:
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
	case app.CodeUnavailable:
		// A busy database: worth a warning (many mean the writer is overloaded), and a retry.
		logFrom(r).Warn("request unavailable", "method", r.Method, "route", routeOf(r), "err", err)
		w.Header().Set("Retry-After", "1")
	}
	body := errorBodyOf(e)
	if e == errInternalReply {
		body.Error.RequestID = requestIDOf(r)
	}
	writeJSON(w, statusOf(e.Code), body)
}

// logFrom is the logger for lines about this request: they carry its request_id. It is made
// when a line is logged, not for every request (most log nothing but their request line).
func logFrom(r *http.Request) *slog.Logger {
	if ri, ok := r.Context().Value(infoKey{}).(*requestInfo); ok && ri.log != nil {
		return ri.log.With("request_id", ri.id)
	}
	return slog.Default()
}
