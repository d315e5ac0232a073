package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"wsapi/app"
)

// Challenge answers Meta's subscription check (GET with hub.mode=subscribe, hub.verify_token
// and hub.challenge): the challenge to echo when the token is the integration's, compared in
// constant time.
func Challenge(d app.Deployment, q url.Values) (string, bool) {
	want := VerifyToken(d)
	if q.Get("hub.mode") != "subscribe" || want == "" || q.Get("hub.challenge") == "" {
		return "", false
	}
	if !hmac.Equal([]byte(q.Get("hub.verify_token")), []byte(want)) {
		return "", false
	}
	return q.Get("hub.challenge"), true
}

// Signed tells whether header (X-Hub-Signature-256) is "sha256=" and the hex HMAC-SHA256 of
// the raw body under the integration's app_secret, compared in constant time.
func Signed(d app.Deployment, header string, body []byte) bool {
	secret := d.Secrets["app_secret"]
	hexSum, ok := strings.CutPrefix(header, "sha256=")
	if !ok || secret == "" {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	return hmac.Equal(got, Sign(secret, body))
}

// Sign is the HMAC-SHA256 of body under the app secret, as Meta signs its webhooks.
func Sign(appSecret string, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(body)
	return mac.Sum(nil)
}

// Payload is what Meta POSTs: entry[].changes[].value with messages, statuses, contacts and
// metadata.
type Payload struct {
	Object string `json:"object"`
	Entry  []struct {
		ID      string `json:"id"`
		Changes []struct {
			Field string `json:"field"`
			Value Value  `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

// Value is one change of the messages field.
type Value struct {
	Metadata struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []struct {
		WaID    string `json:"wa_id"`
		Profile struct {
			Name string `json:"name"`
		} `json:"profile"`
	} `json:"contacts"`
	Messages []WireMessage `json:"messages"`
	Statuses []WireStatus  `json:"statuses"`
}

// Media is an image, document, audio, voice note, video or sticker of a message.
type Media struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	Caption  string `json:"caption,omitempty"`
	Filename string `json:"filename,omitempty"`
	Voice    bool   `json:"voice,omitempty"`
}

// WireMessage is one message a contact sent.
type WireMessage struct {
	From      string `json:"from"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Text      *struct {
		Body string `json:"body"`
	} `json:"text,omitempty"`
	Image       *Media `json:"image,omitempty"`
	Document    *Media `json:"document,omitempty"`
	Audio       *Media `json:"audio,omitempty"`
	Video       *Media `json:"video,omitempty"`
	Sticker     *Media `json:"sticker,omitempty"`
	Interactive *struct {
		Type        string  `json:"type"`
		ButtonReply *Choice `json:"button_reply,omitempty"`
		ListReply   *Choice `json:"list_reply,omitempty"`
	} `json:"interactive,omitempty"`
	Button *struct {
		Text    string `json:"text"`
		Payload string `json:"payload"`
	} `json:"button,omitempty"`
}

// Choice is an interactive reply: the button or list row the contact picked.
type Choice struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// WireStatus is the delivery status of a message we sent.
type WireStatus struct {
	ID          string      `json:"id"`
	Status      string      `json:"status"`
	Timestamp   string      `json:"timestamp"`
	RecipientID string      `json:"recipient_id"`
	Errors      []WireError `json:"errors,omitempty"`
}

// WireError is an error of a failed status.
type WireError struct {
	Code      int    `json:"code"`
	Title     string `json:"title"`
	Message   string `json:"message,omitempty"`
	ErrorData struct {
		Details string `json:"details"`
	} `json:"error_data"`
}

// Inbound is one contact's message as the channel shares it with the domain.
type Inbound struct {
	From  app.ChannelProfile
	ExtID string
	At    time.Time
	Text  string
	Media []Media // to download with Fetch
}

// Status is a delivery status of one of our messages, by its wamid.
type Status struct {
	ExtID  string
	Status string // app.DeliverySent, DeliveryDelivered, DeliveryRead or app.DeliveryFailed
	Error  string // Meta's error title, for FAILED
}

// Parse reads a webhook body of the messages field: the contacts' messages (with their
// profile names) and the statuses of our messages. Other fields are ignored; a body that is
// not JSON is an error.
func Parse(body []byte) ([]Inbound, []Status, error) {
	var p Payload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, nil, errors.New("the body is not a WhatsApp webhook payload")
	}
	var in []Inbound
	var st []Status
	for _, e := range p.Entry {
		for _, ch := range e.Changes {
			if ch.Field != "messages" {
				continue
			}
			in = append(in, inbound(ch.Value)...)
			st = append(st, statuses(ch.Value)...)
		}
	}
	return in, st, nil
}

func inbound(v Value) []Inbound {
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	out := make([]Inbound, 0, len(v.Messages))
	for _, m := range v.Messages {
		if m.From == "" || m.ID == "" {
			continue
		}
		text, media := content(m)
		if text == "" && len(media) == 0 {
			continue // reactions, locations and the like: nothing this server keeps yet
		}
		sec, _ := strconv.ParseInt(m.Timestamp, 10, 64)
		out = append(out, Inbound{ExtID: m.ID, At: time.Unix(sec, 0).UTC(), Text: text, Media: media,
			From: app.ChannelProfile{Type: "whatsapp", UserID: m.From, Phone: "+" + m.From, Name: names[m.From]}})
	}
	return out
}

// content is a message's text (a caption, an interactive reply's title and id) and media.
func content(m WireMessage) (string, []Media) {
	switch {
	case m.Text != nil:
		return m.Text.Body, nil
	case m.Interactive != nil && m.Interactive.ButtonReply != nil:
		return choiceText(*m.Interactive.ButtonReply), nil
	case m.Interactive != nil && m.Interactive.ListReply != nil:
		return choiceText(*m.Interactive.ListReply), nil
	case m.Button != nil:
		return m.Button.Text, nil
	}
	for _, md := range []*Media{m.Image, m.Document, m.Audio, m.Video, m.Sticker} {
		if md != nil && md.ID != "" {
			return md.Caption, []Media{*md}
		}
	}
	return "", nil
}

// choiceText keeps both what the contact saw and the id the business gave the choice.
func choiceText(c Choice) string { return c.Title + " [" + c.ID + "]" }

var statusNames = map[string]string{"sent": app.DeliverySent, "delivered": app.DeliveryDelivered,
	"read": app.DeliveryRead, "failed": app.DeliveryFailed}

func statuses(v Value) []Status {
	out := make([]Status, 0, len(v.Statuses))
	for _, s := range v.Statuses {
		name, ok := statusNames[s.Status]
		if !ok || s.ID == "" {
			continue
		}
		st := Status{ExtID: s.ID, Status: name}
		if name == app.DeliveryFailed {
			st.Error = "WhatsApp could not deliver this message"
			if len(s.Errors) > 0 {
				st.Error = "WhatsApp: " + s.Errors[0].Title + " (code " + strconv.Itoa(s.Errors[0].Code) + ")"
			}
		}
		out = append(out, st)
	}
	return out
}
