package web

import (
	"html"
	"html/template"
	"net/http"
	"strings"

	"wsapi/app"
)

// formErrors are a form's problems by field, named as the service names them (the API's
// own validation: "name", "config.model", "secrets.bot_token"...), so a template shows each
// one beside its field: {{.Errors.For "config.model"}}. A form's inputs carry the same names
// as the API's fields, so no mapping is kept.
type formErrors map[string]string

// For is the error of one field, as the element shown after its input (nothing when the
// field is fine).
func (fe formErrors) For(name string) template.HTML {
	why, ok := fe[name]
	if !ok {
		return ""
	}
	return template.HTML(`<span class="field-error" role="alert" data-field="` + html.EscapeString(name) + `">` + html.EscapeString(why) + `</span>`)
}

// asFormErrors splits a failed save: a validation error becomes the form's field errors
// (and true); anything else (403, 404, 409, 500) is for writeError as it is. An invalid
// error that names no field is kept under "".
func asFormErrors(err error) (formErrors, bool) {
	e, ok := app.AsError(err)
	if !ok || e.Code != app.CodeInvalidArgument {
		return nil, false
	}
	fe := formErrors{}
	for f, why := range e.Fields {
		fe[f] = why
	}
	if len(fe) == 0 {
		fe[""] = e.Message
	}
	return fe, true
}

// Summary is the line above a form that failed: what to do, and the problems no field of
// the form shows (a field the form has no input for).
func (fe formErrors) Summary(shown ...string) string {
	if len(fe) == 0 {
		return ""
	}
	var rest []string
	for f, why := range fe {
		if f == "" {
			rest = append(rest, why)
			continue
		}
		if !containsPrefix(shown, f) {
			rest = append(rest, f+" "+why)
		}
	}
	msg := "Please fix the fields marked below."
	if len(rest) > 0 {
		msg += " Also: " + strings.Join(rest, "; ") + "."
	}
	return msg
}

func containsPrefix(names []string, field string) bool {
	for _, n := range names {
		if field == n || strings.HasPrefix(field, n+".") || strings.HasPrefix(field, n+"[") {
			return true
		}
	}
	return false
}

// parseForm reads a bounded urlencoded form (the CSRF check may have read it already).
func parseForm(rq *Request) {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	_ = rq.R.ParseForm()
}

// field is a trimmed form value.
func field(rq *Request, name string) string { return strings.TrimSpace(rq.R.PostFormValue(name)) }

// checked tells a checkbox that was ticked.
func checked(rq *Request, name string) bool { return rq.R.PostFormValue(name) != "" }

// lines splits a textarea into its non-blank lines.
func lines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// seeOther answers a saved form: a redirect to the page that shows the result (a reload
// does not post the form again).
func seeOther(rq *Request, path string) error {
	http.Redirect(rq.W, rq.R, path, http.StatusSeeOther)
	return nil
}
