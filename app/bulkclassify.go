package app

import "strings"

// bulkClass is the class of one bulk item.
type bulkClass uint8

const (
	bulkCreated bulkClass = iota
	bulkUpdated
	bulkInvalid
)

// bulkPlan is the classification of the items: one class per item, for each updated item (in
// order) its index and the contact it lands on, for each invalid item its reason. It holds
// indexes rather than copies of the items: the three lists of the answer are made once, at
// the end (result), so that an import's writes run without them.
type bulkPlan struct {
	items   []BulkChannel
	class   []bulkClass
	updated []int32
	refs    []ChannelRef // per updated item; ChannelID "" when matched by contact_id alone
	errors  []string     // per invalid item
	created int
}

// result sorts the items into the answer's three lists, in request order.
func (p *bulkPlan) result() BulkResult {
	r := BulkResult{Created: make([]BulkChannel, 0, p.created), Updated: make([]BulkChannel, 0, len(p.updated)),
		Invalid: make([]BulkChannel, 0, len(p.errors)), Errors: p.errors}
	for i, c := range p.class {
		switch c {
		case bulkCreated:
			r.Created = append(r.Created, p.items[i])
		case bulkUpdated:
			r.Updated = append(r.Updated, p.items[i])
		default:
			r.Invalid = append(r.Invalid, p.items[i])
			r.InvalidAt = append(r.InvalidAt, i)
		}
	}
	return r
}

// classify applies the rules of DESIGN.md, item by item, in order.
func classify(tx Tx, orgID string, items []BulkChannel) (*bulkPlan, error) {
	var userIDs, emails, phones, contactIDs []string
	keys := make([][3]string, len(items)) // normalized once: NormalizePhone allocates
	for i, it := range items {
		k := [3]string{it.UserID, NormalizeEmail(it.Email), NormalizePhone(it.Phone)}
		keys[i] = k
		if k[keyUserID] != "" {
			userIDs = append(userIDs, k[keyUserID])
		}
		if k[keyEmail] != "" {
			emails = append(emails, k[keyEmail])
		}
		if k[keyPhone] != "" {
			phones = append(phones, k[keyPhone])
		}
		if it.ContactID != "" {
			contactIDs = append(contactIDs, it.ContactID)
		}
	}
	matches, err := tx.MatchChannels(orgID, userIDs, emails, phones)
	if err != nil {
		return nil, err
	}
	missing, err := tx.MissingContacts(orgID, contactIDs)
	if err != nil {
		return nil, err
	}
	c := classifier{matches: matches, unknown: map[string]bool{}, seen: [3]map[string]struct{}{{}, {}, {}}}
	for _, id := range missing {
		c.unknown[id] = true
	}
	plan := &bulkPlan{items: items, class: make([]bulkClass, len(items))}
	for i, it := range items {
		c.add(plan, i, it, keys[i])
	}
	return plan, nil
}

// The kinds of match keys, in the order the rules try them.
const (
	keyUserID = iota
	keyEmail
	keyPhone
)

var keyNames = [3]string{"user_id", "email", "phone"}

type classifier struct {
	matches ChannelMatches
	unknown map[string]bool
	seen    [3]map[string]struct{} // the keys of earlier items, by kind
}

// add classifies item i, whose user_id, normalized email and normalized phone are keys.
func (c *classifier) add(plan *bulkPlan, i int, it BulkChannel, keys [3]string) {
	why := c.invalid(it, keys)
	for k, v := range keys {
		if v != "" {
			c.seen[k][v] = struct{}{}
		}
	}
	switch ref, ok := c.match(it, keys); {
	case why != "":
		plan.class[i] = bulkInvalid
		plan.errors = append(plan.errors, why)
	case ok:
		plan.class[i] = bulkUpdated
		plan.updated = append(plan.updated, int32(i))
		plan.refs = append(plan.refs, ref)
	default:
		plan.class[i] = bulkCreated
		plan.created++
	}
}

func (c *classifier) invalid(it BulkChannel, keys [3]string) string {
	switch {
	case it.UserID == "" && strings.TrimSpace(it.Email) == "" && strings.TrimSpace(it.Phone) == "":
		return "needs one of user_id, email, phone"
	case it.Email != "" && !validEmail(strings.TrimSpace(it.Email)):
		return "email is not an address"
	case it.Phone != "" && keys[keyPhone] == "":
		return "phone must be 5 to 20 digits"
	case it.ContactID != "" && c.unknown[it.ContactID]:
		return "contact_id names no contact of this organization"
	}
	for _, f := range [4]struct{ name, value string }{{"name", it.Name}, {"user_id", it.UserID}, {"email", it.Email}, {"phone", it.Phone}} {
		if CharCount(f.value) > 255 {
			return f.name + " is longer than 255 characters"
		}
	}
	for k, v := range keys {
		if _, seen := c.seen[k][v]; seen && v != "" {
			return "repeats the " + keyNames[k] + " of an earlier item"
		}
	}
	return ""
}

// match finds the existing channel of the item: by user_id, then email, then phone, each
// only when the channel's contact is the item's contact_id (if given); else the contact
// named by contact_id alone.
func (c *classifier) match(it BulkChannel, keys [3]string) (ChannelRef, bool) {
	for k, by := range [3]map[string]ChannelRef{c.matches.ByUserID, c.matches.ByEmail, c.matches.ByPhone} {
		if ref, ok := by[keys[k]]; ok && keys[k] != "" && (it.ContactID == "" || ref.ContactID == it.ContactID) {
			return ref, true
		}
	}
	if it.ContactID != "" {
		return ChannelRef{ContactID: it.ContactID}, true
	}
	return ChannelRef{}, false
}
