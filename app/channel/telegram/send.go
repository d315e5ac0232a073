package telegram

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/channel"
)

// MaxText is the most text one sendMessage takes, in UTF-16 code units as Telegram counts
// ("1-4096 characters after entities parsing"; no parse_mode: no entities).
const MaxText = 4096

// sentMessage is the part of a sent Message the sender keeps.
type sentMessage struct {
	MessageID int64 `json:"message_id"`
}

// Send delivers a reply of a chat to its contact (see Deliver).
func (c *Connector) Send(ctx context.Context, d app.Deployment, chat app.Chat, m app.Message) (channel.Sent, error) {
	to, err := c.chatOf(ctx, chat)
	if err != nil {
		return channel.Sent{}, err
	}
	files, err := c.files(ctx, chat, m)
	if err != nil {
		return channel.Sent{}, err
	}
	return c.Deliver(ctx, d, to, channel.Text(m), files)
}

// Deliver sends text (split at MaxText, plain: no parse_mode, nothing to escape) and then
// each file (sendVoice for Ogg, sendAudio for other audio, sendPhoto for images, sendDocument
// otherwise) to the Telegram chat to (a
// contact's telegram channel user_id). It answers SENT with the id of the first message
// Telegram made. A broadcast sends to a recipient with Deliver(ctx, d, channel.UserID,
// content, nil). A send cut short is sent again whole by the retry (at least once).
func (c *Connector) Deliver(ctx context.Context, d app.Deployment, to, text string, files []app.ChatFile) (channel.Sent, error) {
	token := d.Secrets[tokenKey]
	var first string
	note := func(m sentMessage) {
		if first == "" {
			first = strconv.FormatInt(m.MessageID, 10)
		}
	}
	for _, piece := range Split(text, MaxText) {
		var m sentMessage
		if err := c.API.Call(ctx, token, "sendMessage", map[string]any{"chat_id": to, "text": piece}, &m); err != nil {
			return channel.Sent{}, sendError(err)
		}
		note(m)
	}
	for _, f := range files {
		method, field := sendMethod(f.FileMimetype)
		var m sentMessage
		if err := c.API.Upload(ctx, token, method, map[string]string{"chat_id": to}, field, f.FileFilename, f.Data, &m); err != nil {
			return channel.Sent{}, sendError(err)
		}
		note(m)
	}
	return channel.Sent{Status: app.DeliverySent, ExternalID: first}, nil
}

// sendMethod picks the Bot API method of a file: Ogg (an assistant's spoken answer, Opus)
// goes as a voice note, other audio as a track, images as photos, the rest as documents.
func sendMethod(mimetype string) (method, field string) {
	switch {
	case mimetype == "audio/ogg":
		return "sendVoice", "voice"
	case strings.HasPrefix(mimetype, "audio/"):
		return "sendAudio", "audio"
	case strings.HasPrefix(mimetype, "image/"):
		return "sendPhoto", "photo"
	}
	return "sendDocument", "document"
}

// files reads the files a message carries (a member's attachment: a part naming a file of
// the chat), with their bytes.
func (c *Connector) files(ctx context.Context, chat app.Chat, m app.Message) ([]app.ChatFile, error) {
	var ids []string
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.File != nil {
				ids = append(ids, p.File.ID)
			} else if p.Audio != nil {
				ids = append(ids, p.Audio.ID)
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var out []app.ChatFile
	err := c.Store.Read(ctx, func(tx app.Tx) error {
		for _, id := range ids {
			f, err := tx.GetFile(chat.OrgID, chat.ID, id)
			if err != nil {
				return err
			}
			out = append(out, f)
		}
		return nil
	})
	return out, err
}

// Split cuts text into pieces of at most limit UTF-16 code units, at the last line break of
// a piece when there is one in its second half, else at the last space there, else at the
// limit (never inside a character).
func Split(text string, limit int) []string {
	text = strings.TrimSpace(text)
	var out []string
	for text != "" {
		if units(text) <= limit {
			return append(out, text)
		}
		cut := cutAt(text, limit)
		out = append(out, strings.TrimSpace(text[:cut]))
		text = strings.TrimSpace(text[cut:])
	}
	return out
}

// cutAt is the byte index where the first piece of text ends.
func cutAt(text string, limit int) int {
	n, end := 0, 0
	for i, r := range text {
		w := max(1, utf16.RuneLen(r))
		if n+w > limit {
			break
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		n, end = n+w, i+size
	}
	head := text[:end]
	for _, sep := range []string{"\n", " "} {
		if i := strings.LastIndex(head, sep); i > len(head)/2 {
			return i + 1
		}
	}
	return end
}

func units(s string) int {
	n := 0
	for _, r := range s {
		n += max(1, utf16.RuneLen(r))
	}
	return n
}
