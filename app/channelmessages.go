package app

import (
	"context"
	"strings"
)

// ChannelMessage is what a contact wrote on a messaging app (Telegram, WhatsApp), as the
// channel's connector parsed it and the inbound worker fetched its files (app/channel/inbound).
type ChannelMessage struct {
	Deployment Deployment
	From       ChannelProfile // Type is the integration's type, UserID the provider's id of the contact
	Text       string
	Files      []ChannelFile
	// Once runs first in the write; false drops the message (the provider sent it before).
	Once func(tx Tx) (bool, error)
}

// ChannelFile is a file a contact sent, downloaded from the provider.
type ChannelFile struct {
	Name, Mimetype string
	Data           []byte
}

// MaxChannelText bounds the text kept of one provider message, in characters (providers
// stop at 4,096).
const MaxChannelText = 16000

// ChannelMessage applies the rule "a channel contact wrote": the contact is found by its
// channel (type and provider id) or made; the message joins the contact's newest chat on the
// integration or opens one (as the widget does: assistant, integration and its state filled);
// the assistant answers when the integration is enabled and the chat lets it (addMessage).
// fresh is false when Once found a duplicate.
func (s *Service) ChannelMessage(ctx context.Context, in ChannelMessage) (m Message, fresh bool, err error) {
	d := in.Deployment
	in.From.Type = d.IntegrationID
	var stopped []string
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if in.Once != nil {
			if fresh, err = in.Once(tx); err != nil || !fresh {
				return err
			}
		}
		fresh = true
		ch, err := s.profileChannel(tx, d.OrgID, in.From, "Unknown")
		if err != nil {
			return err
		}
		chatID, err := s.deploymentChatID(tx, ch.ID, d, "")
		if err != nil {
			return err
		}
		files := make([]InboundFile, len(in.Files))
		for i, f := range in.Files {
			files[i] = InboundFile{Name: f.Name, Mimetype: f.Mimetype, Data: f.Data}
		}
		m, stopped, err = s.AddInbound(tx, Inbound{OrgID: d.OrgID, ChatID: chatID, Text: clip(strings.TrimSpace(in.Text), MaxChannelText),
			Files: files})
		if err != nil {
			return err
		}
		return nil
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return m, fresh, err
}
