package app

import (
	"context"
	"encoding/base64"
	"mime"
	"strconv"
	"strings"
)

// MediaFormats maps the spec's Media formats to a MIME type and file extension.
var MediaFormats = map[string][2]string{
	"opus-rtp": {"audio/opus", "opus"}, "opus-raw": {"audio/opus", "opus"}, "opus-ogg": {"audio/ogg", "ogg"},
	"pcm-wav": {"audio/wav", "wav"}, "pcm-raw": {"audio/L16", "pcm"}, "mp3": {"audio/mpeg", "mp3"},
	"m4a": {"audio/mp4", "m4a"}, "mulaw": {"audio/basic", "ulaw"},
}

// ChatFile is a file stored with a chat (audio of media events).
type ChatFile struct {
	Audio
	ChatID    string `json:"chat_id"`
	MessageID string `json:"message_id"`
	Data      []byte `json:"-"`
}

// FileTx stores chat files.
type FileTx interface {
	CreateFile(orgID string, f ChatFile) error
	GetFile(orgID, chatID, id string) (ChatFile, error)
	// ListFiles filters by filename substring and MIME type prefix, newest first.
	ListFiles(orgID, chatID, search, mimetype string, p Page) ([]ChatFile, int, error)
}

// ChatEventInput is the spec's Send chat event, variants media and sync.
type ChatEventInput struct {
	Type   string `json:"type"`
	ChatID string `json:"chat_id"`
	Data   *struct {
		Audio      string   `json:"audio"`
		Format     string   `json:"format"`
		SampleRate *float64 `json:"sampleRate"`
		Channels   *float64 `json:"channels"`
	} `json:"data"`
}

// ChatEvent handles a chat event. media stores the audio as a file of the in-flight
// message (a new RUNNING contact message when none is in flight) and answers that message;
// sync answers the in-flight message, or nil.
func (s *Service) ChatEvent(ctx context.Context, c Caller, chatID string, in ChatEventInput) (*Message, error) {
	if in.ChatID != "" && in.ChatID != chatID {
		return nil, Invalid("chat_id", "must be the chat of the path")
	}
	switch in.Type {
	case "sync":
		return s.SyncMessage(ctx, c.OrgID, chatID)
	case "media":
		return s.mediaEvent(ctx, c, chatID, in)
	}
	return nil, Invalid("type", "must be media or sync")
}

func (s *Service) inFlight(ctx context.Context, orgID, chatID string) (m *Message, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetChat(orgID, chatID); err != nil {
			return err
		}
		msg, err := tx.InFlightMessage(orgID, chatID)
		if IsNotFound(err) {
			return nil
		}
		m = &msg
		return err
	})
	return m, err
}

func (s *Service) mediaEvent(ctx context.Context, c Caller, chatID string, in ChatEventInput) (*Message, error) {
	p := Problems{}
	var audio []byte
	if in.Data == nil {
		p.Add("data", "is required for media")
	} else {
		var err error
		if audio, err = base64.StdEncoding.DecodeString(in.Data.Audio); err != nil || len(audio) == 0 {
			p.Add("data.audio", "must be non-empty base64")
		}
		if _, ok := MediaFormats[in.Data.Format]; !ok {
			p.Add("data.format", "must be a Media format ("+strings.Join(MediaFormatNames, ", ")+")")
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	var m Message
	err := s.d.Store.Write(ctx, func(tx Tx) (err error) {
		m, err = tx.InFlightMessage(c.OrgID, chatID)
		if err == nil && m.Role != "user" { // the assistant's reply in flight is not the contact's message
			err = NotFound("message")
		}
		if IsNotFound(err) {
			m, _, err = s.addMessage(tx, c.OrgID, c.Member.ID, chatID, MessageInput{Role: "user", Status: "RUNNING",
				Messages: []Turn{{Role: "user", Parts: []Part{}}}})
		}
		if err != nil {
			return err
		}
		f := s.newAudioFile(c.OrgID, chatID, m.ID, audioMimetype(in.Data.Format, in.Data.SampleRate, in.Data.Channels), in.Data.Format, audio)
		if err := tx.CreateFile(c.OrgID, f); err != nil {
			return err
		}
		appendAudio(&m, f.Audio)
		m.UpdatedAt = s.now()
		if err := tx.UpdateMessage(c.OrgID, m); err != nil {
			return err
		}
		if m, err = tx.GetMessage(c.OrgID, chatID, m.ID); err != nil {
			return err
		}
		return s.EmitStream(tx, c.OrgID, chatID, StreamMessageUpdated, m)
	})
	return &m, err
}

// audioMimetype is the MIME type a media event's audio is stored under. Raw formats keep
// what a listener needs in parameters (rate, channels; RTP framing of Opus packets), so the
// transcription can wrap them later (app/voice).
func audioMimetype(format string, rate, channels *float64) string {
	t := MediaFormats[format][0]
	params := map[string]string{}
	if format == "opus-rtp" {
		params["framing"] = "rtp"
	}
	if format == "pcm-raw" || format == "mulaw" {
		for name, v := range map[string]*float64{"rate": rate, "channels": channels} {
			if v != nil && *v >= 1 && *v <= 384000 && *v == float64(int(*v)) {
				params[name] = strconv.Itoa(int(*v))
			}
		}
	}
	return mime.FormatMediaType(t, params)
}

func (s *Service) newAudioFile(orgID, chatID, messageID, mimetype, format string, data []byte) ChatFile {
	id := NewID("file")
	name := id + "." + MediaFormats[format][1]
	return ChatFile{ChatID: chatID, MessageID: messageID, Data: data, Audio: Audio{ID: id, FileFilename: name,
		FilePath: "chats/" + chatID + "/" + name, FileSize: int64(len(data)), FileMimetype: mimetype,
		FileURL:   s.d.Links.ChatFile(orgID, chatID, id),
		CreatedAt: s.now()}}
}

func appendAudio(m *Message, a Audio) {
	if len(m.Messages) == 0 {
		m.Messages = []Turn{{Role: m.Role, Parts: []Part{}}}
	}
	last := &m.Messages[len(m.Messages)-1]
	last.Parts = append(last.Parts, Part{Type: "audio", Audio: &a})
}

// GetFile reads a stored file with its bytes.
func (s *Service) GetFile(ctx context.Context, orgID, chatID, id string) (ChatFile, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (ChatFile, error) { return tx.GetFile(orgID, chatID, id) })
}

// ListFiles is the spec's Query chat files.
func (s *Service) ListFiles(ctx context.Context, orgID, chatID, search, mimetype string, pg Page) (l List[ChatFile], err error) {
	p := Problems{}
	validateSearch(p, search, false)
	if CharCount(mimetype) > 255 {
		p.Add("mimetype", "must be at most 255 characters")
	}
	if err := p.Err(); err != nil {
		return l, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetChat(orgID, chatID); err != nil {
			return err
		}
		l.Items, l.Total, err = tx.ListFiles(orgID, chatID, search, mimetype, pg)
		return err
	})
	return l, err
}

// SetReaction sets the caller's one emoji on a message, replacing a previous one.
func (s *Service) SetReaction(ctx context.Context, c Caller, chatID, messageID, emoji string) (m Message, err error) {
	if !IsSingleEmoji(emoji) {
		return m, Invalid("emoji", "must be exactly one emoji")
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetMessage(c.OrgID, chatID, messageID); err != nil {
			return err
		}
		if err := tx.SetReaction(c.OrgID, messageID, c.Member.ID, emoji); err != nil {
			return err
		}
		if m, err = tx.GetMessage(c.OrgID, chatID, messageID); err != nil {
			return err
		}
		return s.EmitStream(tx, c.OrgID, chatID, StreamMessageUpdated, m)
	})
	return m, err
}

// DeleteReaction removes the caller's emoji from a message.
func (s *Service) DeleteReaction(ctx context.Context, c Caller, chatID, messageID string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetMessage(c.OrgID, chatID, messageID); err != nil {
			return err
		}
		if err := tx.DeleteReaction(c.OrgID, messageID, c.Member.ID); err != nil {
			return err
		}
		m, err := tx.GetMessage(c.OrgID, chatID, messageID)
		if err != nil {
			return err
		}
		return s.EmitStream(tx, c.OrgID, chatID, StreamMessageUpdated, m)
	})
}
