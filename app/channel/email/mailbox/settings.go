package mailbox

import (
	"net"
	"strconv"

	"wsapi/app"
)

// Settings are an integration's IMAP settings: config.imap and the sealed imap_password.
type Settings struct {
	Host     string
	Port     int
	TLS      bool // implicit TLS (993); false: STARTTLS, required
	Username string
	Password string
	Mailbox  string
}

// SettingsOf reads the IMAP settings of an email integration; ok is false when it does not
// poll a mailbox (inbound smtp, or another type). The config was validated when saved.
func SettingsOf(d app.Deployment) (s Settings, ok bool) {
	if d.IntegrationID != app.IntegrationEmail || d.Config["inbound"] != "imap" {
		return s, false
	}
	m, _ := d.Config["imap"].(map[string]any)
	s.Host, _ = m["host"].(string)
	port, _ := m["port"].(float64)
	s.Port = int(port)
	s.TLS, _ = m["tls"].(bool)
	s.Username, _ = m["username"].(string)
	s.Mailbox, _ = m["mailbox"].(string)
	s.Password = d.Secrets["imap_password"]
	return s, s.Host != "" && s.Port > 0
}

// addr is host:port.
func (s Settings) addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// key names the mailbox a cursor belongs to: another host, account or mailbox starts anew.
func (s Settings) key() string { return s.addr() + "\x00" + s.Username + "\x00" + s.Mailbox }
