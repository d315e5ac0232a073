package whatsapptest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Contact is who writes: a wa_id and the profile name WhatsApp shows.
type Contact struct {
	WaID, Name string
}

// Payload is a webhook body of the messages field for this phone number, holding messages
// (with their contacts) or statuses, as Meta sends it.
func (s *Server) Payload(from *Contact, messages []map[string]any, statuses []map[string]any) []byte {
	value := map[string]any{"messaging_product": "whatsapp",
		"metadata": map[string]any{"display_phone_number": "15550100", "phone_number_id": s.PhoneNumberID}}
	if from != nil {
		value["contacts"] = []any{map[string]any{"profile": map[string]any{"name": from.Name}, "wa_id": from.WaID}}
	}
	if messages != nil {
		value["messages"] = messages
	}
	if statuses != nil {
		value["statuses"] = statuses
	}
	b, _ := json.Marshal(map[string]any{"object": "whatsapp_business_account", "entry": []any{map[string]any{
		"id": "WABA_ID", "changes": []any{map[string]any{"field": "messages", "value": value}}}}})
	return b
}

// TextMessage is a contact's text message with a fresh wamid.
func TextMessage(from Contact, text string, at time.Time) map[string]any {
	return message(from, at, "text", map[string]any{"body": text})
}

// MediaMessage is a contact's image, document, audio, video or sticker message.
func MediaMessage(from Contact, typ, mediaID, mimetype, caption, filename string, at time.Time) map[string]any {
	m := map[string]any{"id": mediaID, "mime_type": mimetype, "sha256": "x"}
	if caption != "" {
		m["caption"] = caption
	}
	if filename != "" {
		m["filename"] = filename
	}
	return message(from, at, typ, m)
}

// ButtonReply is a contact's tap on an interactive reply button.
func ButtonReply(from Contact, id, title string, at time.Time) map[string]any {
	return message(from, at, "interactive", map[string]any{"type": "button_reply",
		"button_reply": map[string]any{"id": id, "title": title}})
}

// ListReply is a contact's pick in an interactive list.
func ListReply(from Contact, id, title string, at time.Time) map[string]any {
	return message(from, at, "interactive", map[string]any{"type": "list_reply",
		"list_reply": map[string]any{"id": id, "title": title, "description": ""}})
}

func message(from Contact, at time.Time, typ string, content map[string]any) map[string]any {
	return map[string]any{"from": from.WaID, "id": "wamid." + randomID(16), "timestamp": strconv.FormatInt(at.Unix(), 10),
		"type": typ, typ: content}
}

// Status is the status webhook of a message we sent (sent, delivered, read, failed); a failed
// one carries Meta's error with code and title.
func Status(wamid, status, recipient string, at time.Time, code int, title string) map[string]any {
	st := map[string]any{"id": wamid, "status": status, "timestamp": strconv.FormatInt(at.Unix(), 10), "recipient_id": recipient}
	if status == "failed" {
		st["errors"] = []any{map[string]any{"code": code, "title": title, "message": title,
			"error_data": map[string]any{"details": title}}}
	}
	return st
}

// Post delivers a webhook body to url signed with appSecret (X-Hub-Signature-256: sha256= and
// the hex HMAC-SHA256 of the raw body), as Meta does; an empty secret sends no signature.
func Post(url, appSecret string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "facebookexternalua")
	if appSecret != "" {
		mac := hmac.New(sha256.New, []byte(appSecret))
		mac.Write(body)
		req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	return http.DefaultClient.Do(req)
}
