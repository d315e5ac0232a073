package web

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"wsapi/app"
)

// channelsView is an assistant's integrations (its channels) with the forms that add one.
type channelsView struct {
	A          app.Assistant
	Nav        assistantNav
	Items      []channelItem
	CanWrite   bool
	Identities []app.EmailIdentity // offered for email when the role reads them
	Errors     formErrors
	Open       string            // the form that failed (a type to add, or an integration's id)
	Form       map[string]string // what was typed in it (never a secret)
	Adds       []channelForm
	Notice     string
	Secret     *app.Deployment // a widget just created or rotated: its key, shown this once
}

// channelItem is one integration as the page shows it.
type channelItem struct {
	D          app.Deployment
	WebhookURL string // WhatsApp: where Meta sends its webhooks
	Preview    string // the widget page, for the live preview
	Edit       channelForm
	CanWrite   bool
	CSRF       string
}

// channelForm is the form of one integration type: to add one, or to edit one.
type channelForm struct {
	Type, Label, Action, Prefix, Submit string
	Values                              map[string]string
	Errors                              formErrors
	Open, Edit                          bool
	Identities                          []app.EmailIdentity
	CSRF                                string
	OriginErrors                        []string // the fields config.allowed_origins[i], one a bad line
}

// failed puts a failed save's typed values and errors in the form.
func (f *channelForm) failed(typed map[string]string, fe formErrors) {
	f.Values, f.Errors, f.Open = typed, fe, true
	for _, k := range sortedFields(fe) {
		if strings.HasPrefix(k, "config.allowed_origins[") {
			fe[k] = "line " + lineOf(k) + ": " + fe[k]
			f.OriginErrors = append(f.OriginErrors, k)
		}
	}
}

// lineOf is the 1-based line of a field such as config.allowed_origins[2].
func lineOf(k string) string {
	i, _ := strconv.Atoi(strings.TrimSuffix(k[strings.IndexByte(k, '[')+1:], "]"))
	return strconv.Itoa(i + 1)
}

func sortedFields(fe formErrors) []string {
	keys := make([]string, 0, len(fe))
	for k := range fe {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// channelTypes are the types the page adds, with their labels.
var channelTypes = []struct{ Type, Label string }{
	{app.IntegrationInternal, "Web widget"}, {app.IntegrationEmail, "Email"}, {"telegram", "Telegram"}, {"whatsapp", "WhatsApp"},
}

// values are an integration's config as the form's fields (never a secret).
func values(d app.Deployment) map[string]string {
	v := map[string]string{"name": d.Name, "config.allowed_origins": strings.Join(d.AllowedOrigins(), "\n")}
	if d.RequireIdentity() {
		v["config.require_identity"] = "on"
	}
	for _, k := range []string{"identity_id", "inbound", "phone_number_id", "waba_id"} {
		if s, ok := d.Config[k].(string); ok {
			v["config."+k] = s
		}
	}
	if imap, ok := d.Config["imap"].(map[string]any); ok {
		for k, x := range imap {
			switch x := x.(type) {
			case string:
				v["config.imap."+k] = x
			case float64:
				v["config.imap."+k] = strconv.Itoa(int(x))
			case bool:
				if x {
					v["config.imap."+k] = "on"
				}
			}
		}
	}
	return v
}

// channels is GET /app/assistants/{id}/channels.
func (s *Server) channels(rq *Request) error {
	return s.renderChannels(rq, http.StatusOK, channelsView{})
}

func (s *Server) renderChannels(rq *Request, status int, v channelsView) error {
	a, err := s.svc.GetAssistant(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	l, err := s.svc.ListDeployments(rq.Ctx(), rq.Org(), a.ID, app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return err
	}
	v.A, v.Nav, v.CanWrite = a, s.nav(rq, a, "channels"), rq.Can(app.Write("assistants"))
	if v.CanWrite && rq.Can(app.Read("emails")) {
		if ids, err := s.svc.ListIdentities(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake}); err == nil {
			v.Identities = ids.Items
		}
	}
	for _, d := range l.Items {
		it := channelItem{D: d, Edit: channelForm{Type: d.IntegrationID, Action: "/app/assistants/" + a.ID + "/channels/" + d.ID,
			Prefix: d.ID, Submit: "Save and check", Values: values(d), Edit: true, Identities: v.Identities, CSRF: rq.CSRF()},
			CanWrite: v.CanWrite, CSRF: rq.CSRF()}
		if v.Open == d.ID {
			it.Edit.failed(v.Form, v.Errors)
		}
		switch d.IntegrationID {
		case app.IntegrationInternal:
			it.Preview = "/widget/" + d.ID
		case "whatsapp":
			it.WebhookURL = s.publicBase(rq.R) + "/hooks/whatsapp/" + d.ID
		}
		v.Items = append(v.Items, it)
	}
	for _, t := range channelTypes {
		f := channelForm{Type: t.Type, Label: t.Label, Action: "/app/assistants/" + a.ID + "/channels", Prefix: "new-" + t.Type,
			Submit: "Add " + t.Label, Values: map[string]string{"config.inbound": "smtp", "config.imap.port": "993",
				"config.imap.tls": "on", "config.imap.mailbox": "INBOX"}, Identities: v.Identities, CSRF: rq.CSRF()}
		if v.Open == t.Type {
			f.failed(v.Form, v.Errors)
		}
		v.Adds = append(v.Adds, f)
	}
	return s.render(rq, status, "channels", s.page(rq, a.Name+" · Channels", v))
}

// publicBase is the server's public URL (http.public_url), else the address the request
// came to.
func (s *Server) publicBase(r *http.Request) string {
	if s.origin == "" || strings.HasSuffix(s.origin, ":0") {
		return "http://" + r.Host
	}
	return s.origin
}

// channelFields are the form fields of each integration type, by the API's names.
var channelFields = map[string][]string{
	app.IntegrationInternal: {"config.allowed_origins", "config.require_identity"},
	app.IntegrationEmail: {"config.identity_id", "config.inbound", "config.imap.host", "config.imap.port", "config.imap.tls",
		"config.imap.username", "config.imap.mailbox", "secrets.imap_password"},
	"telegram": {"secrets.bot_token"},
	"whatsapp": {"config.phone_number_id", "config.waba_id", "secrets.access_token", "secrets.app_secret"},
}

// channelConfig reads the config and secrets of a type's form. A secret left empty is
// absent: on an edit it keeps the stored one.
func channelConfig(rq *Request, typ string) (map[string]any, map[string]string) {
	config, secrets := map[string]any{}, map[string]string{}
	switch typ {
	case app.IntegrationInternal:
		origins := []any{}
		for _, o := range lines(rq.R.PostFormValue("config.allowed_origins")) {
			origins = append(origins, o)
		}
		config["allowed_origins"] = origins
		config["require_identity"] = checked(rq, "config.require_identity")
	case app.IntegrationEmail:
		config["identity_id"], config["inbound"] = field(rq, "config.identity_id"), field(rq, "config.inbound")
		if config["inbound"] == "imap" {
			imap := map[string]any{"host": field(rq, "config.imap.host"), "username": field(rq, "config.imap.username"),
				"mailbox": field(rq, "config.imap.mailbox"), "tls": checked(rq, "config.imap.tls")}
			if port, err := strconv.ParseFloat(field(rq, "config.imap.port"), 64); err == nil {
				imap["port"] = port
			} else {
				imap["port"] = field(rq, "config.imap.port") // not a number: the service says so
			}
			config["imap"] = imap
		}
	case "whatsapp":
		config["phone_number_id"], config["waba_id"] = field(rq, "config.phone_number_id"), field(rq, "config.waba_id")
	}
	for _, f := range channelFields[typ] {
		if name, ok := strings.CutPrefix(f, "secrets."); ok {
			if v := field(rq, f); v != "" {
				secrets[name] = v
			}
		}
	}
	return config, secrets
}

// typedFields keeps what was typed in a failed form, secrets left out.
func typedFields(rq *Request, typ string) map[string]string {
	out := map[string]string{"name": field(rq, "name")}
	for _, f := range channelFields[typ] {
		if !strings.HasPrefix(f, "secrets.") {
			out[f] = strings.TrimSpace(rq.R.PostFormValue(f))
		}
	}
	return out
}

// createChannel is POST /app/assistants/{id}/channels: the API's CreateDeployment with the
// form of one type. The widget's identity key is shown this once.
func (s *Server) createChannel(rq *Request) error {
	parseForm(rq)
	typ := field(rq, "integration_id")
	config, secrets := channelConfig(rq, typ)
	d, err := s.svc.CreateDeployment(rq.Ctx(), rq.Org(), rq.Params.ByName("id"),
		app.DeploymentInput{IntegrationID: typ, Name: field(rq, "name"), Config: config, Secrets: secrets})
	if err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		return s.renderChannels(rq, http.StatusBadRequest, channelsView{Errors: fe, Open: typ, Form: typedFields(rq, typ)})
	}
	v := channelsView{Notice: d.Name + " added: " + strings.ToLower(d.Status) + "."}
	if d.SecretKey != "" {
		v.Secret = &d
	}
	return s.renderChannels(rq, http.StatusOK, v)
}

// updateChannel is POST /app/assistants/{id}/channels/{asi}: the API's PATCH with the
// type's whole config (secrets left empty are kept); the set-up check runs again.
func (s *Server) updateChannel(rq *Request) error {
	d, err := s.svc.GetDeployment(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("asi"))
	if err != nil {
		return err
	}
	parseForm(rq)
	config, secrets := channelConfig(rq, d.IntegrationID)
	name := field(rq, "name")
	d, err = s.svc.UpdateDeployment(rq.Ctx(), rq.Org(), d.AssistantID, d.ID, app.DeploymentPatch{Name: &name, Config: config, Secrets: secrets})
	if err != nil {
		fe, ok := asFormErrors(err)
		if !ok {
			return err
		}
		return s.renderChannels(rq, http.StatusBadRequest, channelsView{Errors: fe, Open: rq.Params.ByName("asi"), Form: typedFields(rq, d.IntegrationID)})
	}
	return s.renderChannels(rq, http.StatusOK, channelsView{Notice: d.Name + " saved: " + statusLine(d)})
}

func statusLine(d app.Deployment) string {
	if d.Error != nil {
		return strings.ToLower(d.Status) + ": " + *d.Error
	}
	return strings.ToLower(d.Status) + "."
}

// enableChannel is POST .../channels/{asi}/enabled with enabled=true|false.
func (s *Server) enableChannel(rq *Request) error {
	parseForm(rq)
	on := field(rq, "enabled") == "true"
	d, err := s.svc.UpdateDeployment(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("asi"), app.DeploymentPatch{Enabled: &on})
	if err != nil {
		return err
	}
	word := "disabled"
	if d.Enabled {
		word = "enabled"
	}
	return s.renderChannels(rq, http.StatusOK, channelsView{Notice: d.Name + " " + word + "."})
}

// testChannel is POST .../channels/{asi}/test: the integration's set-up check again (a
// bot token's getMe, an IMAP login), through UpdateDeployment with its own config, which
// stores and shows the status and error it comes back with.
func (s *Server) testChannel(rq *Request) error {
	d, err := s.svc.GetDeployment(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("asi"))
	if err != nil {
		return err
	}
	if d.Config == nil {
		d.Config = map[string]any{}
	}
	d, err = s.svc.UpdateDeployment(rq.Ctx(), rq.Org(), d.AssistantID, d.ID, app.DeploymentPatch{Config: d.Config})
	if err != nil {
		return err
	}
	return s.renderChannels(rq, http.StatusOK, channelsView{Notice: "Connection test of " + d.Name + ": " + statusLine(d)})
}

// rotateChannel is POST .../channels/{asi}/rotate: a widget's new identity key, shown once.
func (s *Server) rotateChannel(rq *Request) error {
	d, err := s.svc.RotateDeploymentKey(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("asi"))
	if err != nil {
		return err
	}
	return s.renderChannels(rq, http.StatusOK, channelsView{Notice: d.Name + ": new identity key made; the old one no longer verifies visitors.", Secret: &d})
}

// deleteChannel is POST .../channels/{asi}/delete.
func (s *Server) deleteChannel(rq *Request) error {
	if err := s.svc.DeleteDeployment(rq.Ctx(), rq.Org(), rq.Params.ByName("id"), rq.Params.ByName("asi")); err != nil {
		return err
	}
	return seeOther(rq, "/app/assistants/"+rq.Params.ByName("id")+"/channels")
}
