package web

import (
	"net/http"
	"net/url"
	"strings"

	"wsapi/app"
)

// form is a submitted form shown back to the member: the values typed, each field's error
// beside its field (from the API's own validation, app.Error.Fields, never a copy of its
// rules here), and a message for errors that belong to no field (a refused role grant).
type form struct {
	Values url.Values
	Errors map[string]string
	Error  string
}

// newForm reads a bounded urlencoded body.
func newForm(rq *Request) form {
	rq.R.Body = http.MaxBytesReader(rq.W, rq.R.Body, maxFormBytes)
	_ = rq.R.ParseForm()
	return form{Values: rq.R.PostForm}
}

// Get is a field's value as typed.
func (f form) Get(name string) string { return f.Values.Get(name) }

// Has tells whether a multi-value field (checkboxes) holds v.
func (f form) Has(name, v string) bool {
	for _, x := range f.Values[name] {
		if x == v {
			return true
		}
	}
	return false
}

// Err is the error of a field, also when the API names an item of it ("events[2]").
func (f form) Err(name string) string {
	if why, ok := f.Errors[name]; ok {
		return why
	}
	for k, why := range f.Errors {
		if strings.HasPrefix(k, name+"[") || strings.HasPrefix(k, name+".") {
			return why
		}
	}
	return ""
}

// failed takes a service error into the form: invalid fields beside their fields, a refusal
// or a conflict as the form's message, with the status to answer. Any other error (a 404,
// a server fault) is returned for the usual error page.
func (f *form) failed(err error) (int, error) {
	status, msg := describe(err)
	e, ok := app.AsError(err)
	switch {
	case !ok || status == http.StatusInternalServerError || status == http.StatusNotFound:
		return 0, err
	case e.Code == app.CodeInvalidArgument && len(e.Fields) > 0:
		f.Errors = e.Fields
		f.Error = "Please fix the fields marked below."
	default:
		f.Error = msg
	}
	return status, nil
}

// shown is the form of a page of several forms that came back refused, and which it is.
type shown struct {
	Form    form
	FormFor string
}

// FormOf is the refused form when it is name's, else an empty one: the page's other forms
// show neither its values nor its errors.
func (s shown) FormOf(name string) form {
	if s.FormFor == name {
		return s.Form
	}
	return form{}
}
