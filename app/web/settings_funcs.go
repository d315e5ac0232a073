package web

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"wsapi/app"
)

// settingsFuncs are the template helpers of the settings pages.
func settingsFuncs() template.FuncMap {
	return template.FuncMap{
		"emptyForm": func() form { return form{} },
		"roleChoice": func(roles []app.Role, current string) map[string]any {
			return map[string]any{"Roles": roles, "Current": current}
		},
		"permBoxes": permBoxes,
		"add":       func(a, b int) int { return a + b },
		"pageQuery": func(q, segment string, page int) template.URL {
			return template.URL(url.Values{"q": {q}, "segment": {segment}, "page": {strconv.Itoa(page)}}.Encode())
		},
		"hookFields": hookFields,
		"formPerms": func(f form) []app.Permission {
			var ps []app.Permission
			for _, p := range f.Values["permissions"] {
				ps = append(ps, app.Permission(p))
			}
			return ps
		},
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"join": strings.Join,
		"flagAt": func(r app.Recipient, flag string) string {
			if at, ok := r.Flags[flag]; ok {
				return at.UTC().Format("2006-01-02 15:04 UTC")
			}
			return ""
		},
		"money": func(v float64) string { return trimFloat(v) },
	}
}

type permRow struct {
	Area        string
	Read, Write bool
}

// permBoxes lays out a role's permissions as one row per area.
func permBoxes(areas []string, held []app.Permission, disabled bool) map[string]any {
	set := app.NewPermissionSet(held)
	rows := make([]permRow, 0, len(areas))
	for _, a := range areas {
		rows = append(rows, permRow{Area: a, Read: set.Has(app.Read(a)), Write: set.Has(app.Write(a))})
	}
	return map[string]any{"Rows": rows, "Disabled": disabled}
}

// hookFields is what a webhook's fields show: the form typed (shown back with its errors),
// else the endpoint's values.
func hookFields(f form, events []app.EventType, name, url string, chosen []string, disabled ...bool) map[string]any {
	if f.Values != nil {
		name, url, chosen = f.Get("name"), f.Get("url"), f.Values["events"]
	}
	set := map[string]bool{}
	for _, e := range chosen {
		set[e] = true
	}
	return map[string]any{"Form": f, "Events": events, "Name": name, "URL": url, "Chosen": set,
		"Disabled": len(disabled) > 0 && disabled[0]}
}
