package api_test

import (
	"reflect"
	"testing"

	"wsapi/app/apitest"
)

// TestCreateContactAnswersWhatIsStored: POST create answers the contact it built (no read
// back when there are no segments); it must be exactly what GET reads from the store.
func TestCreateContactAnswersWhatIsStored(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	body := map[string]any{"name": "  Echo  ", "channels": []map[string]any{
		{"type": "email", "email": "echo@example.com", "name": "Work"},
		{"type": "whatsapp", "phone": "+1 (555) 010-0199", "platform_data": map[string]any{"wa_id": "x", "n": 3, "nested": map[string]any{"b": true}}},
		{"type": "telegram", "username": "echo_bot", "user_id": "42"},
		{"type": "custom", "ip": "192.0.2.1", "agent": "UA", "language": "en"},
	}}
	created := e.Do("POST", "/orgs/c/contacts", e.AdminKey, body).Expect(201).Map()
	read := e.Do("GET", "/orgs/c/contacts/"+created["id"].(string), e.AdminKey, nil).Expect(200).Map()
	if !reflect.DeepEqual(created, read) {
		t.Fatalf("created %v\nread    %v", created, read)
	}
	if len(created["channels"].([]any)) != 4 {
		t.Fatalf("channels %v", created["channels"])
	}
}
