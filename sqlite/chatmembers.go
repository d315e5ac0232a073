package sqlite

import (
	"database/sql"

	"wsapi/app"
)

// chatMemberSet holds the members of a page of chats, by chat and by entry id.
type chatMemberSet struct {
	byChat map[string][]app.ChatMember
	byID   map[string]app.ChatMember
}

// chatMembers loads every member entry of the chats: a member as user, a contact as its
// channel in the nested form.
func (t *Tx) chatMembers(chats []app.Chat) (chatMemberSet, error) {
	set := chatMemberSet{byChat: map[string][]app.ChatMember{}, byID: map[string]app.ChatMember{}}
	ids := make([]string, len(chats))
	for i, c := range chats {
		ids[i] = c.ID
	}
	rows, err := t.query(`SELECT cm.chat_id, cm.id, cm.role, m.id, m.name, m.avatar,
		ch.id, ch.type, ch.user_id, ch.avatar, ch.name, ch.username, ch.email, ch.phone, ch.country, ch.agent, ch.ip,
		ch.language, ct.id, ct.name, ct.blocked, ct.is_admin, cm.session_id
		FROM chat_members cm
		LEFT JOIN members m ON m.id = cm.member_id
		LEFT JOIN contact_channels ch ON ch.id = cm.contact_channel_id
		LEFT JOIN contacts ct ON ct.id = ch.contact_id
		WHERE cm.chat_id IN (SELECT value FROM json_each(?)) ORDER BY cm.created_at, cm.rowid`, jsonText(ids))
	if err != nil {
		return set, err
	}
	members, err := collect(rows, func(r rowScanner) (k keyed[app.ChatMember], err error) {
		k.key, k.v, err = scanChatMember(r)
		return k, err
	})
	for _, m := range members {
		set.byChat[m.key] = append(set.byChat[m.key], m.v)
		set.byID[m.v.ID] = m.v
	}
	return set, err
}

func scanChatMember(r rowScanner) (string, app.ChatMember, error) {
	var chatID string
	var cm app.ChatMember
	var mID, mName, mAvatar sql.NullString
	var ch [12]sql.NullString
	var ctID, ctName sql.NullString
	var ctBlocked, ctAdmin sql.NullBool
	var session sql.NullString
	err := r.Scan(&chatID, &cm.ID, &cm.Role, &mID, &mName, &mAvatar, &ch[0], &ch[1], &ch[2], &ch[3], &ch[4], &ch[5],
		&ch[6], &ch[7], &ch[8], &ch[9], &ch[10], &ch[11], &ctID, &ctName, &ctBlocked, &ctAdmin, &session)
	if err != nil {
		return "", cm, err
	}
	if mID.Valid {
		cm.User = &app.User{ID: mID.String, Name: mName.String, Avatar: mAvatar.String}
	}
	if ch[0].Valid {
		n := &app.NestedChannel{ID: ch[0].String, ChannelProfile: app.ChannelProfile{Type: ch[1].String, UserID: ch[2].String,
			Avatar: ch[3].String, Name: ch[4].String, Username: ch[5].String, Email: ch[6].String, Phone: ch[7].String,
			Country: ch[8].String, Agent: ch[9].String, IP: ch[10].String, Language: ch[11].String},
			Contact: app.ChannelContact{ID: ctID.String, Name: ctName.String, Blocked: ctBlocked.Bool, IsAdmin: ctAdmin.Bool}}
		n.Link = n.ChannelProfile.Link()
		cm.ContactChannel = n
		cm.Session = &app.Session{ID: cm.ID}
		if session.Valid { // the widget session the chat was started from
			cm.Session.ID = session.String
		}
	}
	return chatID, cm, nil
}
