package telegram

import (
	"context"
	"encoding/json"
	"io"
	"path"
	"strconv"
	"strings"

	"wsapi/app"
	"wsapi/app/channel"
)

// Update is the part of the Bot API's Update this channel reads.
type Update struct {
	UpdateID      int64    `json:"update_id"`
	Message       *Message `json:"message,omitempty"`
	EditedMessage *Message `json:"edited_message,omitempty"`
}

// Message is the part of the Bot API's Message this channel reads.
type Message struct {
	MessageID int64       `json:"message_id"`
	From      *User       `json:"from,omitempty"`
	Chat      Chat        `json:"chat"`
	Date      int64       `json:"date"`
	Text      string      `json:"text,omitempty"`
	Caption   string      `json:"caption,omitempty"`
	Photo     []PhotoSize `json:"photo,omitempty"`
	Document  *Document   `json:"document,omitempty"`
	Voice     *Voice      `json:"voice,omitempty"`
}

// Chat is the Bot API's Chat: private, group, supergroup or channel.
type Chat struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// PhotoSize is one size of a photo.
type PhotoSize struct {
	FileID   string `json:"file_id"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	FileSize int64  `json:"file_size,omitempty"`
}

// Document is a general file.
type Document struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	FileSize int64  `json:"file_size,omitempty"`
}

// Voice is a voice note.
type Voice struct {
	FileID   string `json:"file_id"`
	Duration int    `json:"duration"`
	MimeType string `json:"mime_type,omitempty"`
	FileSize int64  `json:"file_size,omitempty"`
}

// File is getFile's answer.
type File struct {
	FileID   string `json:"file_id"`
	FileSize int64  `json:"file_size,omitempty"`
	FilePath string `json:"file_path,omitempty"`
}

// editedPrefix starts the text of an edited message: an edit reaches the inbox (and the
// assistant) as a new message of the contact, saying it corrects an earlier one, as the
// Bot API gives the whole edited message and chats keep what was said.
const editedPrefix = "(edited) "

// Parse reads one update: a message or an edited message of a private chat from a person.
// Anything else (groups, channels, bots, other update kinds, messages with nothing this
// channel keeps, such as stickers) gives nothing.
func (c *Connector) Parse(_ context.Context, _ app.Deployment, body []byte) ([]channel.Incoming, error) {
	var u Update
	if err := json.Unmarshal(body, &u); err != nil {
		return nil, err
	}
	m, prefix := u.Message, ""
	if m == nil && u.EditedMessage != nil {
		m, prefix = u.EditedMessage, editedPrefix
	}
	if m == nil || m.Chat.Type != "private" || m.From == nil || m.From.IsBot {
		return nil, nil
	}
	in := channel.Incoming{ExtID: "update:" + strconv.FormatInt(u.UpdateID, 10), From: profile(*m.From),
		Text: strings.TrimSpace(m.Text + m.Caption), Media: media(m)}
	if in.Text == "" && len(in.Media) == 0 {
		return nil, nil
	}
	if in.Text != "" {
		in.Text = prefix + in.Text
	}
	return []channel.Incoming{in}, nil
}

func profile(u User) app.ChannelProfile {
	return app.ChannelProfile{Type: Type, UserID: strconv.FormatInt(u.ID, 10), Username: u.Username,
		Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Language: u.LanguageCode}
}

// media are the files of a message: the largest size of a photo, a document, a voice note.
func media(m *Message) []channel.Media {
	var out []channel.Media
	if len(m.Photo) > 0 {
		best := m.Photo[0]
		for _, p := range m.Photo[1:] {
			if p.Width*p.Height > best.Width*best.Height || (p.Width*p.Height == best.Width*best.Height && p.FileSize > best.FileSize) {
				best = p
			}
		}
		out = append(out, channel.Media{Ref: best.FileID, Name: "photo.jpg", Mimetype: "image/jpeg"})
	}
	if d := m.Document; d != nil {
		out = append(out, channel.Media{Ref: d.FileID, Name: path.Base(d.FileName), Mimetype: d.MimeType})
	}
	if v := m.Voice; v != nil {
		mt := v.MimeType
		if mt == "" {
			mt = "audio/ogg"
		}
		out = append(out, channel.Media{Ref: v.FileID, Name: "voice.ogg", Mimetype: mt})
	}
	return out
}

// Fetch downloads a file a contact sent: getFile names its path, /file/bot<token>/<path>
// serves it (the Bot API serves files up to 20 MB).
func (c *Connector) Fetch(ctx context.Context, d app.Deployment, ref string) (string, string, io.ReadCloser, error) {
	token := d.Secrets[tokenKey]
	var f File
	if err := c.API.Call(ctx, token, "getFile", map[string]string{"file_id": ref}, &f); err != nil {
		return "", "", nil, err
	}
	body, err := c.API.Download(ctx, token, f.FilePath)
	return path.Base(f.FilePath), "", body, err
}
