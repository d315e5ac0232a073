package api_test

import (
	"net/url"
	"testing"

	"wsapi/app/apitest"
)

// TestPhoneDigitsSearchTheSameEverywhere: the inbox finds a chat by its contact's phone as
// digits, punctuated any way, as the contacts list does; text that is not a phone does not
// turn into a digit search.
func TestPhoneDigitsSearchTheSameEverywhere(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	ct := chContact(e, e.AdminKey, "c", "Ada Lovelace", map[string]any{"type": "whatsapp", "phone": "+1 555 123 4567"})
	other := chContact(e, e.AdminKey, "c", "Other 555", map[string]any{"type": "whatsapp", "phone": "+44 20 7946 0000"})
	chat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"]})["id"].(string)
	otherChat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": other["id"]})["id"].(string)
	for _, s := range []string{"5551234567", "555-123-4567", "(555) 123-4567", "+15551234567", "1234567", "555 123"} {
		chSameList(t, "inbox search "+s, chInbox(e, e.AdminKey, chQ("search", s)), []string{chat})
		got := ctIDs(e, "/orgs/c/contacts?search="+url.QueryEscape(s))
		chSameList(t, "contacts search "+s, got, []string{ct["id"].(string)})
	}
	// A search with words is not a phone: "Other 555" is the other contact's name, not a part
	// of Ada's phone.
	chSameList(t, "inbox search of a name with digits", chInbox(e, e.AdminKey, chQ("search", "Other 555")), []string{otherChat})
	chSameList(t, "contacts search of a name with digits", ctIDs(e, "/orgs/c/contacts?search="+url.QueryEscape("Other 555")),
		[]string{other["id"].(string)})
}
