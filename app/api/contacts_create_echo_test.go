package api_test

import (
	"reflect"
	"testing"

	"wsapi/app"
)

// TestCreateContactAnswersWhatIsStored: POST create answers the contact it built (no read
// back when there are no segments), in the very bytes it streamed as contact.created; it
// must be exactly what GET reads from the store, and what the organization's stream carries.
// With segments the contact is read back, and the same holds.
func TestCreateContactAnswersWhatIsStored(t *testing.T) {
	t.Parallel()
	e := stEnv(t)
	seg := ctSegment(e, e.AdminKey, "c", "Echoed")
	stream := orgOpen(t, e, e.AdminKey, "")
	for _, body := range []map[string]any{
		{"name": "  Echo  ", "channels": []map[string]any{
			{"type": "email", "email": "echo@example.com", "name": "Work"},
			{"type": "whatsapp", "phone": "+1 (555) 010-0199", "platform_data": map[string]any{"wa_id": "x", "n": 3, "nested": map[string]any{"b": true}}},
			{"type": "telegram", "username": "echo_bot", "user_id": "42"},
			{"type": "custom", "ip": "192.0.2.1", "agent": "UA", "language": "en"},
		}},
		{"name": "In a segment", "segment_ids": []string{seg}, "channels": []map[string]any{{"type": "email", "email": "seg@example.com"}}},
	} {
		res := e.Do("POST", "/orgs/c/contacts", e.AdminKey, body).Expect(201)
		created := res.Map()
		read := e.Do("GET", "/orgs/c/contacts/"+created["id"].(string), e.AdminKey, nil).Expect(200)
		if string(res.Body) != string(read.Body) {
			t.Errorf("%s: created %s\nread    %s", body["name"], res.Body, read.Body)
		}
		if streamed := stream.Expect(app.StreamContactCreated).Map(t); !reflect.DeepEqual(streamed, created) {
			t.Errorf("%s: streamed %v\ncreated  %v", body["name"], streamed, created)
		}
		if n := len(created["channels"].([]any)); n != len(body["channels"].([]map[string]any)) {
			t.Errorf("%s: channels %v", body["name"], created["channels"])
		}
	}
}
