// Package msgtemplate is the shape of an approved WhatsApp message template as the API takes
// it (a message part of type template, a WhatsApp broadcast's template) and its validation.
// It imports nothing of the domain, so the domain (app) and the channel (app/channel/whatsapp)
// share it.
package msgtemplate

import "regexp"

// Template is an approved message template: its name, language code and the components that
// fill its parameters, sent as Meta's template object.
type Template struct {
	Name       string `json:"name"`
	Language   string `json:"language"`
	Components []any  `json:"components,omitempty"`
}

// MaxComponents bounds a template's components (header, body, buttons: Meta's own are few).
const MaxComponents = 10

var (
	name     = regexp.MustCompile(`^[a-z0-9_]{1,512}$`)
	language = regexp.MustCompile(`^[a-z]{2,3}(_[A-Za-z]{2,4})?$`)
)

// Check calls add for each problem of t at field (field itself when t is missing).
func Check(field string, t *Template, add func(field, why string)) {
	if t == nil {
		add(field, "names an approved template: {name, language, components}")
		return
	}
	if !name.MatchString(t.Name) {
		add(field+".name", "must be a template name: 1 to 512 lowercase letters, digits and underscores")
	}
	if !language.MatchString(t.Language) {
		add(field+".language", "must be a language code such as en or en_US")
	}
	if len(t.Components) > MaxComponents {
		add(field+".components", "must hold at most 10 components")
	}
}
