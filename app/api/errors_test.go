package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"wsapi/app"
)

// TestErrorAnswers: each kind of domain error gets its status, headers and body in the one
// mapping; an error the mapping does not know is a 500 that shows nothing of it.
func TestErrorAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		err        error
		status     int
		code       app.Code
		fields     map[string]string
		retryAfter string
	}{
		{"busy database, wrapped", fmt.Errorf("sqlite: begin: %w", app.Unavailable("the database is busy")), 503, app.CodeUnavailable, map[string]string{}, "1"},
		{"taken value names its field", app.Taken("email", "is already in use"), 409, app.CodeConflict, map[string]string{"email": "is already in use"}, ""},
		{"plain conflict", app.Conflict("no"), 409, app.CodeConflict, map[string]string{}, ""},
		{"not found", app.NotFound("member"), 404, app.CodeNotFound, map[string]string{}, ""},
		{"invalid", app.Invalid("name", "is required"), 400, app.CodeInvalidArgument, map[string]string{"name": "is required"}, ""},
		{"unknown error", errors.New("disk on fire at /var/lib"), 500, codeInternal, map[string]string{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/orgs/c", nil)
			r = r.WithContext(context.WithValue(r.Context(), infoKey{}, &requestInfo{log: slog.New(slog.DiscardHandler)}))
			writeError(w, r, c.err)
			if w.Code != c.status || w.Header().Get("Retry-After") != c.retryAfter {
				t.Fatalf("status %d, Retry-After %q; want %d, %q", w.Code, w.Header().Get("Retry-After"), c.status, c.retryAfter)
			}
			var body errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Error.Code != c.code || fmt.Sprint(body.Error.Fields) != fmt.Sprint(c.fields) {
				t.Fatalf("body %s", w.Body)
			}
			if c.status == http.StatusInternalServerError && body.Error.Message != "internal error" {
				t.Fatalf("a 500 shows %q", body.Error.Message)
			}
		})
	}
}
